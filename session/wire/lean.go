package wire

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/jsonlex"
)

// The shim is a fresh process per command, and encoding/json builds its
// encoder for a type on first use: for Request, which reaches event.Event,
// that took 0.4 ms of every command. The shim's two calls (begin, and end
// without events) are therefore written by hand, and answers are read
// into reply, which has no such depth. Both stay byte-compatible with
// what encoding/json reads. (Fuzzed against encoding/json: FuzzLeanLine,
// FuzzParseReply.)

// leanLine is the request line of begin, or of end without events; ok is
// false for any other request.
func leanLine(req Request) (line []byte, ok bool) {
	b := make([]byte, 0, 128)
	switch {
	case req.Op == "begin" && req.Begin != nil && (!req.NoReply || req.Key != ""):
		b = append(b, `{"op":"begin",`...)
		b = appendKey(b, req)
		b = append(b, `"begin":{"command":`...)
		b = appendString(b, req.Begin.Command)
		if req.Begin.Cwd != "" {
			b = append(b, `,"cwd":`...)
			b = appendString(b, req.Begin.Cwd)
		}
		if req.Begin.Source != "" {
			b = append(b, `,"source":`...)
			b = appendString(b, req.Begin.Source)
		}
		b = append(b, "}}\n"...)
	case req.Op == "end" && req.End != nil && plainEvents(req.End.Events) && (!req.NoReply || req.Key != ""):
		e := req.End
		b = append(b, `{"op":"end",`...)
		b = appendKey(b, req)
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, int64(req.ID), 10)
		b = append(b, `,"end":{"exit":`...)
		b = strconv.AppendInt(b, int64(e.Exit), 10)
		b = appendStrings(b, [][2]string{{"signal", e.Signal}, {"output", e.Output}, {"tail", e.Tail}, {"channel", e.Channel}})
		if e.Elided {
			b = append(b, `,"elided":true`...)
		}
		if e.Unseen {
			b = append(b, `,"unseen":true`...)
		}
		if e.Bytes != 0 {
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, int64(e.Bytes), 10)
		}
		if len(e.Events) > 0 {
			b = append(b, `,"events":[`...)
			for i, ev := range e.Events {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendEvent(b, ev)
			}
			b = append(b, ']')
		}
		b = append(b, "}}\n"...)
	default:
		return nil, false
	}
	return b, true
}

// plainEvents reports whether events hold only what an adapter's
// classification sets (kind, scopes, the strings), which appendEvent
// writes: a relay's tool call ends with such events every call.
func plainEvents(evs []event.Event) bool {
	for _, ev := range evs {
		if !ev.Time.IsZero() || ev.Step != nil || ev.RecordedStep != nil || ev.Exit != nil || ev.Output != nil ||
			ev.Attempt != nil || ev.Raw != nil {
			return false
		}
	}
	return true
}

// appendEvent writes a plain event (plainEvents) as encoding/json reads it.
func appendEvent(b []byte, ev event.Event) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, ev.Seq, 10)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(ev.Kind))
	if len(ev.Scopes) > 0 {
		b = append(b, `,"scopes":[`...)
		for i, sc := range ev.Scopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			first := true
			field := func(name string) {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, `"`+name+`":`...)
			}
			if sc.Path != "" {
				field("path")
				b = appendString(b, sc.Path)
			}
			if sc.Start != 0 {
				field("start")
				b = strconv.AppendInt(b, int64(sc.Start), 10)
			}
			if sc.End != 0 {
				field("end")
				b = strconv.AppendInt(b, int64(sc.End), 10)
			}
			if sc.Precision != "" {
				field("precision")
				b = appendString(b, string(sc.Precision))
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if ev.Action != 0 {
		b = append(b, `,"action":`...)
		b = strconv.AppendInt(b, int64(ev.Action), 10)
	}
	b = appendStrings(b, [][2]string{{"source", ev.Source}, {"actor", string(ev.Actor)}, {"command", ev.Command},
		{"tool", ev.Tool}, {"diff", ev.Diff}, {"text", ev.Text}, {"note", ev.Note}})
	return append(b, '}')
}

// appendStrings writes each named string that is not empty as a field,
// each after a comma (omitempty's rule).
func appendStrings(b []byte, fields [][2]string) []byte {
	for _, f := range fields {
		if f[1] != "" {
			b = append(b, `,"`+f[0]+`":`...)
			b = appendString(b, f[1])
		}
	}
	return b
}

// appendKey writes a keyed request's noreply and key fields, each
// followed by a comma.
func appendKey(b []byte, req Request) []byte {
	if req.NoReply {
		b = append(b, `"noreply":true,`...)
	}
	if req.Key != "" {
		b = append(b, `"key":`...)
		b = appendString(b, req.Key)
		b = append(b, ',')
	}
	return b
}

// appendString appends s as a JSON string, as encoding/json would read
// it back: invalid UTF-8 becomes U+FFFD, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// reply is a Response as the client reads it: Status stays raw until
// asked for (Client.Status), so decoding an answer is cheap.
type reply struct {
	OK       bool            `json:"ok"`
	Error    string          `json:"error"`
	ID       int             `json:"id"`
	Seq      int64           `json:"seq"`
	Messages []Message       `json:"messages"`
	Status   json.RawMessage `json:"status"`
	Armed    bool            `json:"armed"`
}

// parseReply reads an answer line without encoding/json (whose first use
// costs a fresh process 0.2 ms): the fields of reply, other fields
// skipped. It accepts what encoding/json writes, and errs on anything that
// is not one JSON object.
func parseReply(line []byte) (reply, error) {
	p := jsonlex.New(line)
	var r reply
	if p.Null() { // read as encoding/json reads it: nothing set
		return r, p.End()
	}
	err := p.Object(func(key string) error {
		switch strings.ToLower(key) { // encoding/json matches keys case-blind too
		case "ok":
			return p.Bool(&r.OK)
		case "armed":
			return p.Bool(&r.Armed)
		case "error":
			return p.Str(&r.Error)
		case "id":
			return p.Int(&r.ID)
		case "seq":
			return p.Int64(&r.Seq)
		case "status":
			raw, err := p.Raw()
			r.Status = append(json.RawMessage(nil), raw...)
			return err
		case "messages":
			if p.Null() {
				return nil
			}
			r.Messages = []Message{}
			return p.Array(func() error {
				var m Message
				if p.Null() {
					r.Messages = append(r.Messages, m)
					return nil
				}
				err := p.Object(func(key string) error {
					switch strings.ToLower(key) {
					case "order":
						return p.Int(&m.Order)
					case "text":
						return p.Str(&m.Text)
					}
					return p.Skip()
				})
				r.Messages = append(r.Messages, m)
				return err
			})
		}
		return p.Skip()
	})
	if err == nil {
		err = p.End()
	}
	return r, err
}
