package wire

import (
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/jsonvalid"
)

// The hub's side of the shim's two calls. A shim's begin and end reach a
// hub that has been idle while bash ran, and encoding/json's reflection,
// cold, was about 50 µs of each command's round trips; so the hub reads
// begin and end (with an adapter's plain events: a relay's tool call) and
// writes the answers to them by hand, as the shim does. Anything else goes through encoding/json. Both are
// fuzzed against it (FuzzParseRequest, FuzzAppendResponse).

// ParseRequest reads a request line that is a begin or an end (its
// events plain), exactly as encoding/json would; ok is false for any other line
// (another call, an event, bad JSON), which the caller hands to
// encoding/json.
func ParseRequest(line []byte) (req Request, ok bool) {
	if !jsonvalid.Valid(line) {
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
					return p.events(&e.Events)
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

// events reads an end's events, as encoding/json would, when they hold
// only what an adapter's classification sets (appendEvent's fields); a
// field beyond those is errNotLean.
func (p *lexer) events(evs *[]event.Event) error {
	return list(p, evs, func(ev *event.Event) error {
		return p.fields(func(key string) error {
			switch key {
			case "seq":
				return p.integer(&ev.Seq)
			case "action":
				return p.intValue(&ev.Action)
			case "kind":
				return p.str((*string)(&ev.Kind))
			case "actor":
				return p.str((*string)(&ev.Actor))
			case "source":
				return p.str(&ev.Source)
			case "command":
				return p.str(&ev.Command)
			case "tool":
				return p.str(&ev.Tool)
			case "diff":
				return p.str(&ev.Diff)
			case "text":
				return p.str(&ev.Text)
			case "note":
				return p.str(&ev.Note)
			case "scopes":
				return list(p, &ev.Scopes, p.scope)
			case "time", "step", "recorded_step", "exit", "output", "attempt", "raw":
				return errNotLean
			}
			return p.skip()
		})
	})
}

// scope reads one of an event's scopes.
func (p *lexer) scope(sc *event.Scope) error {
	return p.fields(func(key string) error {
		switch key {
		case "path":
			return p.str(&sc.Path)
		case "start":
			return p.intValue(&sc.Start)
		case "end":
			return p.intValue(&sc.End)
		case "precision":
			return p.str((*string)(&sc.Precision))
		}
		return p.skip()
	})
}

// list reads an array into a slice as encoding/json does for a slice
// that is nil (null: nil; [] an empty one; a null element a zero one),
// each element by elem; a slice already filled (a key given twice, which
// encoding/json merges into the first) is errNotLean.
func list[T any](p *lexer, dst *[]T, elem func(*T) error) error {
	if p.null() {
		*dst = nil
		return nil
	}
	if *dst != nil {
		return errNotLean
	}
	out := []T{}
	err := p.array(func() error {
		var v T
		if !p.null() {
			if err := elem(&v); err != nil {
				return err
			}
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return err
	}
	*dst = out
	return nil
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
