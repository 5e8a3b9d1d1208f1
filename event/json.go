package event

import (
	"strconv"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// AppendJSON appends what json.Marshal writes for ev, written by hand:
// the hub records every command and tool call, and encoding/json's
// reflection, cold, was a tenth of its CPU per relayed call. ok is false
// for an event holding an attempt or raw traffic, which the caller leaves
// to encoding/json (FuzzAppendJSON holds the rest to it).
func (ev Event) AppendJSON(b []byte) (out []byte, ok bool) {
	if ev.Attempt != nil || ev.Raw != nil {
		return b, false
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, ev.Seq, 10)
	if !ev.Time.IsZero() {
		var err error // MarshalJSON's text, written in place (no allocation)
		if b, err = ev.Time.AppendText(append(b, `,"time":"`...)); err != nil {
			return b, false // json.Marshal fails the same way
		}
		b = append(b, '"')
	}
	b = appendField(b, "source", ev.Source)
	b = appendField(b, "actor", string(ev.Actor))
	b = append(b, `,"kind":`...)
	b = fastjson.AppendString(b, string(ev.Kind))
	if len(ev.Scopes) > 0 {
		b = append(b, `,"scopes":[`...)
		for i, sc := range ev.Scopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = sc.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = appendIntPtr(b, "step", ev.Step)
	b = appendIntPtr(b, "recorded_step", ev.RecordedStep)
	b = appendInt(b, "action", ev.Action)
	b = appendField(b, "command", ev.Command)
	b = appendField(b, "tool", ev.Tool)
	b = appendIntPtr(b, "exit", ev.Exit)
	if o := ev.Output; o != nil {
		b = append(b, `,"output":`...)
		b = o.appendJSON(b)
	}
	b = appendField(b, "diff", ev.Diff)
	b = appendField(b, "text", ev.Text)
	b = appendField(b, "note", ev.Note)
	return append(b, '}'), true
}

func (sc Scope) appendJSON(b []byte) []byte {
	n := len(b)
	b = appendField(b, "path", sc.Path)
	b = appendInt(b, "start", sc.Start)
	b = appendInt(b, "end", sc.End)
	b = appendField(b, "precision", string(sc.Precision))
	return closeObject(b, n)
}

func (o *Output) appendJSON(b []byte) []byte {
	n := len(b)
	b = appendField(b, "text", o.Text)
	b = appendField(b, "head", o.Head)
	b = appendField(b, "tail", o.Tail)
	if o.Elided {
		b = append(b, `,"elided":true`...)
	}
	b = appendInt(b, "bytes", o.Bytes)
	b = appendField(b, "sha256", o.SHA256)
	return closeObject(b, n)
}

// closeObject makes the fields appended after n (each led by a comma) an
// object.
func closeObject(b []byte, n int) []byte {
	if len(b) == n {
		return append(b, "{}"...)
	}
	b[n] = '{'
	return append(b, '}')
}

// appendField appends ,"name":s unless s is empty (omitempty).
func appendField(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(append(append(b, `,"`...), name...), `":`...)
	return fastjson.AppendString(b, s)
}

// appendInt appends ,"name":n unless n is 0 (omitempty).
func appendInt(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(append(append(b, `,"`...), name...), `":`...)
	return strconv.AppendInt(b, int64(n), 10)
}

// appendIntPtr appends ,"name":*p unless p is nil (omitempty).
func appendIntPtr(b []byte, name string, p *int) []byte {
	if p == nil {
		return b
	}
	b = append(append(append(b, `,"`...), name...), `":`...)
	return strconv.AppendInt(b, int64(*p), 10)
}
