package wire

import (
	"strconv"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/fastjson"
)

// The hub's side of the shim's two calls. A shim's begin and end reach a
// hub that has been idle while bash ran, and encoding/json's reflection,
// cold, was about 50 µs of each command's round trips; so the hub reads
// begin and end (with an adapter's plain events: a relay's tool call) and
// writes the answers to them by hand, as the shim does. Anything else goes through encoding/json. Both are
// fuzzed against it (FuzzParseRequest, FuzzAppendResponse).

// ownedUpTo is the longest line lexed from a copy of its own. A short
// line's one copy holds every plain string read from it (a command, its
// output, each event's fields), not a copy each; a longer one is nearly
// always a told read, whose text has escapes and is decoded into memory
// of its own anyway, so that copying the line first was 5% of the hub's
// CPU on 16 KiB reads: its strings are copied one at a time instead.
const ownedUpTo = 4 << 10

// lexerOf is the lexer ParseRequest reads line with: nothing read from it
// shares line's memory, which the caller reuses.
func lexerOf(line []byte) *fastjson.Lexer {
	if len(line) <= ownedUpTo {
		return fastjson.Owned(string(line))
	}
	return fastjson.New(line)
}

// ParseRequest reads a request line that is a begin or an end (its
// events plain), exactly as encoding/json would; ok is false for any other line
// (another call, an event, bad JSON), which the caller hands to
// encoding/json.
func ParseRequest(line []byte) (req Request, ok bool) {
	// the lexer reads JSON strictly (its numbers by JSON's grammar, the
	// whole line to its end), so a line it reads is one encoding/json
	// reads: no pass of json.Valid first
	p := lexerOf(line)
	err := p.Fields(func(key string) error {
		switch key {
		case "op":
			return p.Word(&req.Op, "begin", "end", "observe", "record", "messages", "sync", "status")
		case "id":
			return p.Int(&req.ID)
		case "channel":
			return p.Str(&req.Channel)
		case "noreply":
			return p.Bool(&req.NoReply)
		case "key":
			return p.Str(&req.Key)
		case "begin":
			if p.Null() {
				req.Begin = nil
				return nil
			}
			if req.Begin == nil { // a repeated key fills the same value, as encoding/json does
				req.Begin = &Begin{}
			}
			return p.Fields(func(key string) error {
				switch key {
				case "command":
					return p.Str(&req.Begin.Command)
				case "cwd":
					return p.Str(&req.Begin.Cwd)
				case "source":
					return p.Word(&req.Begin.Source, "mcp", "shell", "acp")
				}
				return p.Skip()
			})
		case "end":
			if p.Null() {
				req.End = nil
				return nil
			}
			if req.End == nil {
				req.End = &End{}
			}
			return p.Fields(func(key string) error {
				e := req.End
				switch key {
				case "exit":
					return p.Int(&e.Exit)
				case "bytes":
					return p.Int(&e.Bytes)
				case "signal":
					return p.Str(&e.Signal)
				case "output":
					return p.StrBulk(&e.Output) // a read's text, most of its line
				case "tail":
					return p.Str(&e.Tail)
				case "elided":
					return p.Bool(&e.Elided)
				case "channel":
					return p.Word(&e.Channel, channels...)
				case "unseen":
					return p.Bool(&e.Unseen)
				case "events":
					return events(p, &e.Events)
				}
				return p.Skip()
			})
		case "event":
			if p.Null() {
				return nil
			}
			return fastjson.ErrUnsupported
		}
		return p.Skip()
	})
	if err != nil || p.End() != nil || req.Op != "begin" && req.Op != "end" {
		return Request{}, false
	}
	return req, true
}

// kinds and channels are the values a relay's lines nearly always hold,
// read without a string made for each (jsonlex.Lexer.Word).
var (
	kinds    = []string{string(event.Read), string(event.Edit), string(event.Test), string(event.Run)}
	channels = []string{"tool-output", "mcp-result", "mcp-text", "hook-context"}
)

// events reads an end's events, as encoding/json would, when they hold
// only what an adapter's classification sets (what plainEvents lets
// through); a
// field beyond those is jsonlex.ErrUnsupported.
func events(p *fastjson.Lexer, evs *[]event.Event) error {
	return list(p, evs, func(ev *event.Event) error {
		return p.Fields(func(key string) error {
			switch key {
			case "seq":
				return p.Int64(&ev.Seq)
			case "action":
				return p.Int(&ev.Action)
			case "kind":
				return p.Word((*string)(&ev.Kind), kinds...)
			case "actor":
				return p.Word((*string)(&ev.Actor), string(event.Agent))
			case "source":
				return p.Word(&ev.Source, "mcp", "shell", "acp", "watch")
			case "command":
				return p.Str(&ev.Command)
			case "tool":
				return p.Str(&ev.Tool)
			case "diff":
				return p.Str(&ev.Diff)
			case "text":
				return p.Str(&ev.Text)
			case "note":
				return p.Str(&ev.Note)
			case "scopes":
				return list(p, &ev.Scopes, func(sc *event.Scope) error { return scope(p, sc) })
			case "time", "step", "recorded_step", "exit", "output", "attempt", "raw":
				return fastjson.ErrUnsupported
			}
			return p.Skip()
		})
	})
}

// scope reads one of an event's scopes.
func scope(p *fastjson.Lexer, sc *event.Scope) error {
	return p.Fields(func(key string) error {
		switch key {
		case "path":
			return p.Str(&sc.Path)
		case "start":
			return p.Int(&sc.Start)
		case "end":
			return p.Int(&sc.End)
		case "precision":
			return p.Str((*string)(&sc.Precision))
		}
		return p.Skip()
	})
}

// list reads an array into a slice as encoding/json does for a slice
// that is nil (null: nil; [] an empty one; a null element a zero one),
// each element by elem; a slice already filled (a key given twice, which
// encoding/json merges into the first) is jsonlex.ErrUnsupported.
func list[T any](p *fastjson.Lexer, dst *[]T, elem func(*T) error) error {
	if p.Null() {
		*dst = nil
		return nil
	}
	if *dst != nil {
		return fastjson.ErrUnsupported
	}
	out := []T{}
	err := p.Array(func() error {
		var v T
		if !p.Null() {
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
		b = fastjson.AppendString(b, r.Error)
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
			b = fastjson.AppendString(b, m.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.Armed {
		b = append(b, `,"armed":true`...)
	}
	return append(b, "}\n"...), true
}
