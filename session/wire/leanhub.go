package wire

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The hub's side of the shim's two calls. A shim's begin and end reach a
// hub that has been idle while bash ran, and encoding/json's reflection,
// cold, was about 50 µs of each command's round trips; so the hub reads
// begin and end (without events) and writes the answers to them by hand,
// as the shim does. Anything else goes through encoding/json. Both are
// fuzzed against it (FuzzParseRequest, FuzzAppendResponse).

// ParseRequest reads a request line that is a begin or an end without
// events, exactly as encoding/json would; ok is false for any other line
// (another call, an event, bad JSON), which the caller hands to
// encoding/json.
func ParseRequest(line []byte) (req Request, ok bool) {
	if !json.Valid(line) {
		return Request{}, false
	}
	p := &lexer{b: line}
	err := p.fields(func(key string) error {
		switch key {
		case "op":
			return p.str(&req.Op)
		case "id":
			return p.intValue(&req.ID)
		case "channel":
			return p.str(&req.Channel)
		case "noreply":
			return p.boolean(&req.NoReply)
		case "key":
			return p.str(&req.Key)
		case "begin":
			if p.null() {
				req.Begin = nil
				return nil
			}
			if req.Begin == nil { // a repeated key fills the same value, as encoding/json does
				req.Begin = &Begin{}
			}
			return p.fields(func(key string) error {
				switch key {
				case "command":
					return p.str(&req.Begin.Command)
				case "cwd":
					return p.str(&req.Begin.Cwd)
				case "source":
					return p.str(&req.Begin.Source)
				}
				return p.skip()
			})
		case "end":
			if p.null() {
				req.End = nil
				return nil
			}
			if req.End == nil {
				req.End = &End{}
			}
			return p.fields(func(key string) error {
				e := req.End
				switch key {
				case "exit":
					return p.intValue(&e.Exit)
				case "bytes":
					return p.intValue(&e.Bytes)
				case "signal":
					return p.str(&e.Signal)
				case "output":
					return p.str(&e.Output)
				case "tail":
					return p.str(&e.Tail)
				case "elided":
					return p.boolean(&e.Elided)
				case "channel":
					return p.str(&e.Channel)
				case "unseen":
					return p.boolean(&e.Unseen)
				case "events":
					if p.null() {
						return nil
					}
					return errNotLean
				}
				return p.skip()
			})
		case "event":
			if p.null() {
				return nil
			}
			return errNotLean
		}
		return p.skip()
	})
	if err != nil || req.Op != "begin" && req.Op != "end" {
		return Request{}, false
	}
	return req, true
}

// fields reads an object as object does, handing field each key as
// encoding/json matches it to a struct field: case-blind. A key beyond
// ASCII, whose Unicode folding (ſ for s, K for k) is left to
// encoding/json, stops the read with errNotLean.
func (p *lexer) fields(field func(key string) error) error {
	return p.object(func(key string) error {
		for i := 0; i < len(key); i++ {
			if key[i] >= 0x80 {
				return errNotLean
			}
		}
		return field(strings.ToLower(key))
	})
}

// errNotLean stops ParseRequest at a field only encoding/json reads.
var errNotLean = &notLean{}

type notLean struct{}

func (*notLean) Error() string { return "not a lean request" }

// AppendResponse appends the answer line to a begin or an end (ok, error,
// id, armed, messages), as encoding/json would read it back; ok is false
// for an answer carrying a status or a seq, which encoding/json writes.
func AppendResponse(b []byte, r Response) ([]byte, bool) {
	if r.Status != nil || r.Seq != 0 {
		return b, false
	}
	b = append(b, `{"ok":`...)
	b = strconv.AppendBool(b, r.OK)
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, r.Error)
	}
	if r.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(r.ID), 10)
	}
	if len(r.Messages) > 0 {
		b = append(b, `,"messages":[`...)
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"order":`...)
			b = strconv.AppendInt(b, int64(m.Order), 10)
			b = append(b, `,"text":`...)
			b = appendString(b, m.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.Armed {
		b = append(b, `,"armed":true`...)
	}
	return append(b, "}\n"...), true
}
