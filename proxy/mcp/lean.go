package mcp

import (
	"bytes"
	"encoding/json"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/swetouch/swetouch/internal/jsonlex"
	"github.com/swetouch/swetouch/internal/jsonout"
	"github.com/swetouch/swetouch/session/wire"
)

// The relay reads each tools/call's params before the request goes on,
// and each result after it has gone; with encoding/json's reflection,
// cold, that was a fifth of the relay's CPU per call on this project's
// machines. So both are read by hand (internal/jsonlex) where that reads
// them as encoding/json does, and by encoding/json everywhere else.
// FuzzToolCall and FuzzResultReading hold the two readings together.

// toolCall is what the relay takes from a tools/call's params: the tool
// and its arguments as they came.
type toolCall struct {
	tool string
	args json.RawMessage
}

// readTool reads a tools/call's params but for its arguments' text,
// by hand when it can: what a call told of once it is over needs before
// it goes on (its text is written after it, appendText). Its error is
// encoding/json's reading of the params with the arguments kept raw.
func readTool(params json.RawMessage) (toolCall, error) {
	if c, ok := leanTool(params); ok {
		return c, nil
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return toolCall{}, err
	}
	return toolCall{tool: p.Name, args: p.Arguments}, nil
}

// appendText appends the text a call's begin names its arguments by
// (what json.Marshal writes for them, {} for none), by hand when it can;
// an error is encoding/json's, whose decoding of the arguments into an
// any fails (as decoding the params with them in one go does).
func (c toolCall) appendText(dst []byte) ([]byte, error) {
	if len(c.args) == 0 || string(c.args) == "null" {
		return append(dst, "{}"...), nil
	}
	if text, ok := jsonout.Canonical(dst, c.args); ok {
		return text, nil
	}
	var a any
	if err := json.Unmarshal(c.args, &a); err != nil {
		return dst, err
	}
	return append(dst, argsJSON(a)...), nil
}

// leanTool is readTool by hand: false where encoding/json's reading is
// left to it.
func leanTool(params json.RawMessage) (toolCall, bool) {
	if len(params) == 0 {
		return toolCall{}, false
	}
	var c toolCall
	p := jsonlex.New(params)
	if !p.Null() {
		err := p.Fields(func(key string) error {
			switch key {
			case "name":
				return p.Str(&c.tool)
			case "arguments":
				raw, err := p.Raw()
				c.args = raw // the last one given, as encoding/json keeps
				return err
			}
			return p.Skip()
		})
		if err != nil {
			return toolCall{}, false
		}
	}
	if p.End() != nil {
		return toolCall{}, false
	}
	if string(c.args) == "null" {
		c.args = nil
	}
	return c, true
}

// arguments is the call's arguments decoded, for the classifier (nil
// when they are not an object).
func (c toolCall) arguments() map[string]any {
	if len(c.args) == 0 {
		return nil
	}
	p := jsonlex.New(c.args)
	if v, err := p.Any(); err == nil && p.End() == nil {
		m, _ := v.(map[string]any)
		return m
	}
	var m map[string]any
	if json.Unmarshal(c.args, &m) != nil {
		return nil
	}
	return m
}

// resultReading is what the relay tells the hub of a tools/call result:
// the text its text blocks show, whether it is an error, and the channel
// its messages travel on (see placement.channel).
type resultReading struct {
	text    string
	isError bool
	channel string
}

// readResult reads a tools/call result, by hand when it can.
func readResult(result json.RawMessage, place placement) resultReading {
	if r, ok := leanResult(result, place); ok {
		return r
	}
	r := resultReading{channel: place.channel(result)}
	var res toolResult
	if json.Unmarshal(result, &res) == nil {
		r.text, r.isError = res.text(), res.IsError
	}
	return r
}

// leanResult is readResult by hand: false where encoding/json's reading
// is left to it.
func leanResult(result json.RawMessage, place placement) (resultReading, bool) {
	r := resultReading{channel: "mcp-result"}
	if len(result) == 0 {
		return r, false
	}
	p := jsonlex.New(result)
	if p.Null() {
		return r, p.End() == nil
	}
	var text texts
	var contentSeen bool
	var sc json.RawMessage
	err := p.Fields(func(key string) error {
		switch key {
		case "content":
			if contentSeen {
				return jsonlex.ErrUnsupported // encoding/json decodes a second one into the first's blocks
			}
			contentSeen = true
			if p.Null() {
				return nil
			}
			return p.Array(func() error { return textBlock(p, &text) })
		case "iserror":
			return p.Bool(&r.isError)
		case "structuredcontent":
			raw, err := p.Raw()
			sc = raw
			return err
		}
		return p.Skip()
	})
	if err != nil || p.End() != nil {
		return r, false
	}
	r.text = text.String()
	// the exact key looked for only where a key folded to it came (a
	// search of the whole result, a file's text and all, was a pass more
	// of every read)
	if len(sc) > 0 && string(sc) != "null" && bytes.Contains(result, []byte(`"structuredContent"`)) {
		// as placement.channel decides
		if !carries(sc, place) {
			r.channel = wire.UnconfirmedChannel + "mcp-content-only"
		}
	}
	return r, true
}

// textBlock reads one content block as mcp-go's TextContent decodes, and
// adds its text when it is a text block. Annotations and _meta, which
// mcp-go decodes its own way, are left to encoding/json.
func textBlock(p *jsonlex.Lexer, text *texts) error {
	if p.Null() {
		return nil
	}
	var typ, s string
	err := p.Fields(func(key string) error {
		switch key {
		case "type":
			return p.Str(&typ)
		case "text":
			return p.Str(&s)
		case "annotations", "_meta":
			if p.Null() {
				return nil
			}
			return jsonlex.ErrUnsupported
		}
		return p.Skip()
	})
	if err == nil && typ == mcpgo.ContentTypeText {
		text.add(s)
	}
	return err
}

// texts is a result's text blocks, joined: the one block a result nearly
// always has is kept as it was read, not copied again.
type texts struct {
	first  string
	joined strings.Builder
	n      int
}

func (t *texts) add(s string) {
	switch t.n {
	case 0:
		t.first = s
	case 1:
		t.joined.WriteString(t.first)
		fallthrough
	default:
		t.joined.WriteString(s)
	}
	t.n++
}

func (t *texts) String() string {
	if t.n <= 1 {
		return t.first
	}
	return t.joined.String()
}

// carries reports whether a structuredContent that is not null can
// carry a message as place says (placement.carry, read by hand): an
// object, and for a field, one whose value there is a string (or null,
// which decodes into one).
func carries(sc json.RawMessage, place placement) bool {
	p := jsonlex.New(sc)
	if p.Peek() != '{' {
		return false
	}
	var found, isString bool
	err := p.Object(func(key string) error {
		if place.field == "" || key != place.field {
			return p.Skip()
		}
		c := p.Peek()
		found, isString = true, c == '"' || c == 'n' // the last one given counts
		return p.Skip()
	})
	switch {
	case err != nil:
		return false
	case place.key != "":
		return true
	}
	return found && isString
}
