package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/session/wire"
)

// Where a user message goes in a tools/call result. Clients differ in
// what they show the model: opencode shows the content blocks, Claude
// Code shows structuredContent when a result has it. So the message goes
// into both, and into structuredContent in a form its tool's outputSchema
// (learned from tools/list) still accepts: a property of its own where the
// schema allows one, else appended to a string property the schema
// requires. A result whose structuredContent can take it neither way
// carries it in content only, on a channel counted as unconfirmed.

// MessageKey is the structuredContent property that carries the user's
// messages where the tool's schema allows properties of its own.
const MessageKey = "user_message"

// placement is where one tool's structuredContent can carry a message.
type placement struct {
	key   string // a property of its own (MessageKey, or another free name)
	field string // else: a string property to append the message to
}

// schemaPlacement reads a tool's outputSchema. No schema, or one that
// allows more properties, takes a key of its own; one closed with
// "additionalProperties": false takes the message in a string property it
// requires (the first by name), or nowhere (the zero placement).
func schemaPlacement(schema json.RawMessage) placement {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		Required   []string        `json:"required"`
		Additional json.RawMessage `json:"additionalProperties"`
	}
	if len(schema) == 0 || string(schema) == "null" || json.Unmarshal(schema, &s) != nil {
		return placement{key: MessageKey}
	}
	if strings.TrimSpace(string(s.Additional)) != "false" {
		key := MessageKey
		for _, taken := s.Properties[key]; taken; _, taken = s.Properties[key] {
			key = "swetouch_" + key
		}
		return placement{key: key}
	}
	isString := func(name string) bool {
		p, ok := s.Properties[name]
		if !ok {
			return false
		}
		var t string
		return json.Unmarshal(p.Type, &t) == nil && t == "string"
	}
	required := slices.Sorted(slices.Values(s.Required))
	for _, name := range required {
		if isString(name) {
			return placement{field: name}
		}
	}
	return placement{}
}

// carry puts text into a structuredContent object as p says; false when it
// cannot (no placement, or the field is not a string there).
func (p placement) carry(sc map[string]json.RawMessage, text string) bool {
	switch {
	case p.key != "":
		sc[p.key], _ = marshal(text)
		return true
	case p.field != "":
		var v string
		if json.Unmarshal(sc[p.field], &v) != nil {
			return false
		}
		sc[p.field], _ = marshal(strings.TrimRight(v, "\n") + "\n\n" + text)
		return true
	}
	return false
}

// channel is the channel a result's messages travel on: "mcp-result"
// when the client sees them whatever it reads, unconfirmed when the
// result has structuredContent that cannot carry them.
func (p placement) channel(result json.RawMessage) string {
	// every call's result passes here: decode only one that has it
	if !bytes.Contains(result, []byte(`"structuredContent"`)) {
		return "mcp-result"
	}
	var res struct {
		Structured json.RawMessage `json:"structuredContent"`
	}
	json.Unmarshal(result, &res)
	if len(res.Structured) == 0 || string(res.Structured) == "null" {
		return "mcp-result"
	}
	var sc map[string]json.RawMessage
	if json.Unmarshal(res.Structured, &sc) != nil || !p.carry(sc, "") {
		return wire.UnconfirmedChannel + "mcp-content-only"
	}
	return "mcp-result"
}

// learnTools reads a tools/list result for each tool's placement.
func learnTools(result json.RawMessage, into map[string]placement, scope string) {
	var res struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	for _, t := range res.Tools {
		into[scope+"\x00"+t.Name] = schemaPlacement(t.OutputSchema)
	}
}

// marshal is json.Marshal without HTML escaping: the message reads as
// written in clients that show the JSON as it came.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
