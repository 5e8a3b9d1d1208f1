package wire

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/fastjson"
)

// The shim is a fresh process per command, and encoding/json builds its
// encoder for a type on first use: for Request, which reaches event.Event,
// that took 0.4 ms of every command. The shim's two calls (begin, and end
// without events) are therefore written by hand, and answers are read
// into reply, which has no such depth. Both stay byte-compatible with
// what encoding/json reads. (Fuzzed against encoding/json: FuzzLeanLine,
// FuzzParseReply.)

// appendLeanLine appends the request line of begin, or of end without
// events, to dst; ok is false for any other request.
func appendLeanLine(dst []byte, req *Request) (line []byte, ok bool) {
	room := 160 // the line's fields and events, besides its texts
	if req.Begin != nil {
		room += len(req.Begin.Command) + len(req.Begin.Cwd)
	}
	if req.End != nil {
		n := len(req.End.Output) + len(req.End.Tail)
		room += n + n/8 + 64*len(req.End.Events) + len(req.outputJSON) // an eighth for escapes (a line break is two bytes)
	}
	var b []byte
	switch {
	case req.Op == "begin" && req.Begin != nil && (!req.NoReply || req.Key != ""):
		b = append(slices.Grow(dst, room), `{"op":"begin",`...)
		b = appendKey(b, req)
		b = appendBegin(b, req.Begin)
		b = append(b, "}\n"...)
	case req.Op == "end" && req.End != nil && plainEvents(req.End.Events) && (!req.NoReply || req.Key != "" || req.Begin != nil):
		e := req.End
		b = append(slices.Grow(dst, room), `{"op":"end",`...)
		b = appendKey(b, req)
		if req.Begin != nil {
			b = appendBegin(b, req.Begin)
			b = append(b, ',')
		}
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, int64(req.ID), 10)
		b = append(b, `,"end":{"exit":`...)
		b = strconv.AppendInt(b, int64(e.Exit), 10)
		b = appendStrings(b, [][2]string{{"signal", e.Signal}, {"output", e.Output}})
		if len(req.outputJSON) > len(`""`) {
			b = append(append(b, `,"output":`...), req.outputJSON...)
		}
		b = appendStrings(b, [][2]string{{"tail", e.Tail}, {"channel", e.Channel}})
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
				b, _ = ev.AppendJSON(b) // plain: never left to encoding/json
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
// classification sets (kind, scopes, the strings), which the hub reads by
// hand: a relay's tool call ends with such events every call.
func plainEvents(evs []event.Event) bool {
	for _, ev := range evs {
		if !ev.Time.IsZero() || ev.Step != nil || ev.RecordedStep != nil || ev.Exit != nil || ev.Output != nil ||
			ev.Attempt != nil || ev.Raw != nil {
			return false
		}
	}
	return true
}

// appendStrings writes each named string that is not empty as a field,
// each after a comma (omitempty's rule).
func appendStrings(b []byte, fields [][2]string) []byte {
	for _, f := range fields {
		if f[1] != "" {
			b = append(b, `,"`+f[0]+`":`...)
			b = fastjson.AppendString(b, f[1])
		}
	}
	return b
}

// appendBegin appends a request's begin field.
func appendBegin(b []byte, bg *Begin) []byte {
	b = append(b, `"begin":{"command":`...)
	b = fastjson.AppendString(b, bg.Command)
	if bg.Cwd != "" {
		b = append(b, `,"cwd":`...)
		b = fastjson.AppendString(b, bg.Cwd)
	}
	if bg.Source != "" {
		b = append(b, `,"source":`...)
		b = fastjson.AppendString(b, bg.Source)
	}
	return append(b, '}')
}

// appendKey writes a keyed request's noreply and key fields, each
// followed by a comma.
func appendKey(b []byte, req *Request) []byte {
	if req.NoReply {
		b = append(b, `"noreply":true,`...)
	}
	if req.Key != "" {
		b = append(b, `"key":`...)
		b = fastjson.AppendString(b, req.Key)
		b = append(b, ',')
	}
	return b
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
	p := fastjson.New(line)
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
