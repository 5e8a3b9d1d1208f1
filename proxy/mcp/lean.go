package mcp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/swetouch/swetouch/internal/fastjson"
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
	if !fastjson.Reference() {
		if c, ok := leanTool(params); ok {
			return c, nil
		}
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
	if !fastjson.Reference() {
		if text, ok := fastjson.Canonical(dst, c.args); ok {
			return text, nil
		}
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
	p := fastjson.New(params)
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
	if !fastjson.Reference() {
		p := fastjson.New(c.args)
		if v, err := p.Any(); err == nil && p.End() == nil {
			m, _ := v.(map[string]any)
			return m
		}
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
	// raw is, where the reading was asked to keep it, the text of a
	// result's one text block as the JSON string it came in (valid JSON,
	// as jsonlex checked it), text then unread: a hub line can carry it as
	// it is (wire.Client.ToldText) rather than have it decoded and
	// written again, which for a file's read was the most of what the
	// relay did per call
	raw json.RawMessage
}

// readResult reads a tools/call result, by hand when it can; with
// keepRaw, a one-block text stays the JSON it came as (resultReading.raw).
func readResult(result json.RawMessage, place placement, keepRaw bool) resultReading {
	if !fastjson.Reference() {
		if r, ok := leanResult(result, place, keepRaw); ok {
			return r
		}
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
func leanResult(result json.RawMessage, place placement, keepRaw bool) (resultReading, bool) {
	if len(result) == 0 {
		return resultReading{}, false
	}
	var lr leanReading
	past, err := lr.read(*fastjson.New(result))
	if err != nil || past.End() != nil {
		return resultReading{}, false
	}
	return lr.reading(result, place, keepRaw)
}

// leanReading is a result read by hand, as far as it can be without the
// tool's placement: read as the relay lexes the line it came in
// (proxy.PeekReading), so that the line is lexed once.
type leanReading struct {
	text    texts
	isError bool
	sc      json.RawMessage // structuredContent, raw
	// scSpelled: a key of the result is structuredContent exactly
	// (placement.channel looks for it in the whole result)
	scSpelled bool
}

// read reads the result value at lx whole (and nothing past it), and
// gives the lexer back past it (jsonlex.Lexer.RawWith).
func (lr *leanReading) read(lx fastjson.Lexer) (fastjson.Lexer, error) {
	*lr = leanReading{}
	p := &lx
	if p.Null() {
		return lx, nil
	}
	var contentSeen bool
	// keys as they came, with their spelling seen
	err := p.FoldedFields(func(key string) error {
		switch {
		case strings.EqualFold(key, "content"):
			if contentSeen {
				return fastjson.ErrUnsupported // encoding/json decodes a second one into the first's blocks
			}
			contentSeen = true
			if p.Null() {
				return nil
			}
			return p.Array(func() error { return textBlock(p, &lr.text) })
		case strings.EqualFold(key, "isError"):
			return p.Bool(&lr.isError)
		case strings.EqualFold(key, "structuredContent"):
			lr.scSpelled = lr.scSpelled || key == "structuredContent"
			raw, err := p.Raw()
			lr.sc = raw
			return err
		}
		return p.Skip()
	})
	return lx, err
}

// reading is what lr read of result, as place decides its channel; with
// keepRaw, a one-block text is left as it came (resultReading.raw).
func (lr *leanReading) reading(result json.RawMessage, place placement, keepRaw bool) (resultReading, bool) {
	r := resultReading{channel: "mcp-result", isError: lr.isError}
	if raw := lr.text.raw(); keepRaw && raw != nil {
		r.raw = raw
	} else {
		var err error
		if r.text, err = lr.text.String(); err != nil {
			return r, false
		}
	}
	// the exact key looked for only where a key folded to it came, and
	// not where the result spells it so (a search of the whole result, a
	// file's text and all, was a pass more of every read)
	if sc := lr.sc; len(sc) > 0 && string(sc) != "null" && (lr.scSpelled || bytes.Contains(result, []byte(`"structuredContent"`))) {
		// as placement.channel decides
		if !carries(sc, place) {
			r.channel = wire.UnconfirmedChannel + "mcp-content-only"
		}
	}
	return r, true
}

// textBlock reads one content block as a textContent decodes, and
// adds its text when it is a text block. Annotations and _meta are left
// to encoding/json (the path that was mcp-go's TextContent).
func textBlock(p *fastjson.Lexer, text *texts) error {
	if p.Null() {
		return nil
	}
	var typ string
	var s json.RawMessage // the text as the JSON string it came as
	err := p.Fields(func(key string) error {
		switch key {
		case "type":
			return p.Str(&typ)
		case "text":
			if p.Peek() != '"' {
				// null leaves the text as it was, as encoding/json
				// leaves a string; anything else is refused
				return p.Str(new(string))
			}
			raw, err := p.Raw()
			s = raw // the last one given, as encoding/json keeps
			return err
		case "annotations", "_meta":
			if p.Null() {
				return nil
			}
			return fastjson.ErrUnsupported
		}
		return p.Skip()
	})
	if err == nil && typ == contentTypeText && s != nil {
		err = text.add(s)
	}
	return err
}

// texts is a result's text blocks, joined: the one block a result nearly
// always has is kept as it was read (a JSON string), decoded only when
// its text is asked for, and then not copied again.
type texts struct {
	first  json.RawMessage
	joined strings.Builder
	n      int
}

// add adds a block's text, a JSON string jsonlex has read whole.
func (t *texts) add(s json.RawMessage) error {
	t.n++
	if t.n == 1 {
		t.first = s
		return nil
	}
	if t.n == 2 {
		if err := decodeInto(&t.joined, t.first); err != nil {
			return err
		}
	}
	return decodeInto(&t.joined, s)
}

// raw is the one block's text as it came; nil unless there is one.
func (t *texts) raw() json.RawMessage {
	if t.n != 1 {
		return nil
	}
	return t.first
}

// String is the text the blocks show.
func (t *texts) String() (string, error) {
	switch t.n {
	case 0:
		return "", nil
	case 1:
		return decodeString(t.first)
	}
	return t.joined.String(), nil
}

// decodeInto appends the text of the JSON string s to b.
func decodeInto(b *strings.Builder, s json.RawMessage) error {
	text, err := decodeString(s)
	if err == nil {
		b.WriteString(text)
	}
	return err
}

// decodeString is the text of the JSON string s.
func decodeString(s json.RawMessage) (string, error) {
	var text string
	err := fastjson.New(s).Str(&text)
	return text, err
}

// carries reports whether a structuredContent that is not null can
// carry a message as place says (placement.carry, read by hand): an
// object, and for a field, one whose value there is a string (or null,
// which decodes into one). sc is as a Lexer read it whole (Raw), so
// its strings are skipped by their quotes alone (jsonlex.Valid).
func carries(sc json.RawMessage, place placement) bool {
	p := fastjson.Valid(sc)
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
