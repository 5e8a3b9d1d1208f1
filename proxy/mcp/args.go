package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/swetouch/swetouch/internal/jsonlex"
)

// args is a call's arguments as the classifier reads them: a key at a
// time, in the JSON text they came as (a call's arguments are a few keys,
// and decoding them into a map cost the relay five allocations a call,
// each a cache miss here), or in a map. A lookup gives what the map
// encoding/json decodes them into gives: the last of a key given twice,
// nothing when the text is not one object, and the map's reading
// wherever jsonlex leaves the text to encoding/json. (FuzzArgs.)
type args struct {
	text json.RawMessage
	m    map[string]any
	read bool // m is the text decoded (after a lookup jsonlex could not do)
}

func textArgs(text json.RawMessage) args { return args{text: text} }
func mapArgs(m map[string]any) args      { return args{m: m, read: true} }

// value is a lexer at key's last value in the text; found is false when
// the text has no such key or is no object. Its error is jsonlex's.
func (a *args) value(key string) (last jsonlex.Lexer, found bool, err error) {
	p := jsonlex.New(a.text)
	if p.Peek() != '{' {
		return last, false, nil
	}
	err = p.Object(func(k string) error {
		if k == key {
			found, last = true, *p
		}
		return p.Skip()
	})
	if err == nil {
		err = p.End()
	}
	return last, found && err == nil, err
}

// decoded is the map the text decodes into, for a lookup jsonlex left.
func (a *args) decoded() map[string]any {
	if !a.read {
		a.read = true
		a.m = toolCall{args: a.text}.arguments()
	}
	return a.m
}

func (a *args) str(key string) string {
	if key == "" {
		return ""
	}
	if !a.read {
		v, found, err := a.value(key)
		var s string
		if found && v.Peek() == '"' {
			err = v.Str(&s)
		}
		if err == nil {
			return s
		}
	}
	s, _ := a.decoded()[key].(string)
	return s
}

func (a *args) boolean(key string) bool {
	if !a.read {
		v, found, err := a.value(key)
		var b bool
		if c := v.Peek(); found && (c == 't' || c == 'f') {
			err = v.Bool(&b)
		}
		if err == nil {
			return b
		}
	}
	b, _ := a.decoded()[key].(bool)
	return b
}

// num is a number's whole part, or a string's leading integer.
func (a *args) num(key string) int {
	if key == "" {
		return 0
	}
	if !a.read {
		v, found, err := a.value(key)
		var n int
		switch c := v.Peek(); {
		case !found:
		case c == '"':
			var s string
			if err = v.Str(&s); err == nil {
				n = leadingInt(s)
			}
		case c == '-' || c >= '0' && c <= '9':
			var f float64
			_, f, err = v.Number()
			n = int(f)
		}
		if err == nil {
			return n
		}
	}
	switch v := a.decoded()[key].(type) {
	case float64:
		return int(v)
	case string:
		return leadingInt(v)
	}
	return 0
}

// leadingInt is the integer a string begins with (fmt's %d), 0 if none.
func leadingInt(s string) int {
	var n int
	fmt.Sscanf(s, "%d", &n)
	return n
}

// strs is an array's strings, what is not a string left out.
func (a *args) strs(key string) []string {
	if !a.read {
		v, found, err := a.value(key)
		var out []string
		if found && v.Peek() == '[' {
			err = v.Array(func() error {
				if v.Peek() != '"' {
					return v.Skip()
				}
				var s string
				err := v.Str(&s)
				out = append(out, s)
				return err
			})
		}
		if err == nil {
			return out
		}
	}
	var out []string
	if list, ok := a.decoded()[key].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
