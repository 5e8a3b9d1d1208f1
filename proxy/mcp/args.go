package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/swetouch/swetouch/internal/fastjson"
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
func (a *args) value(key string) (last fastjson.Lexer, found bool, err error) {
	p := fastjson.New(a.text)
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

// lookup is key's value: read by lean at its last place in the text
// (found false when the text has none), or, where jsonlex leaves the
// text to encoding/json, by fromMap from the decoded map.
func lookup[T any](a *args, key string, lean func(v fastjson.Lexer, found bool) (T, error), fromMap func(v any) T) T {
	if !a.read && !fastjson.Reference() {
		v, found, err := a.value(key)
		if err == nil {
			var got T
			if got, err = lean(v, found); err == nil {
				return got
			}
		}
	}
	return fromMap(a.decoded()[key])
}

func (a *args) str(key string) string {
	if key == "" {
		return ""
	}
	return lookup(a, key, func(v fastjson.Lexer, found bool) (s string, err error) {
		if found && v.Peek() == '"' {
			err = v.Str(&s)
		}
		return s, err
	}, func(v any) string { s, _ := v.(string); return s })
}

func (a *args) boolean(key string) bool {
	return lookup(a, key, func(v fastjson.Lexer, found bool) (b bool, err error) {
		if c := v.Peek(); found && (c == 't' || c == 'f') {
			err = v.Bool(&b)
		}
		return b, err
	}, func(v any) bool { b, _ := v.(bool); return b })
}

// num is a number's whole part, or a string's leading integer.
func (a *args) num(key string) int {
	if key == "" {
		return 0
	}
	return lookup(a, key, func(v fastjson.Lexer, found bool) (n int, err error) {
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
		return n, err
	}, func(v any) int {
		switch v := v.(type) {
		case float64:
			return int(v)
		case string:
			return leadingInt(v)
		}
		return 0
	})
}

// leadingInt is the integer a string begins with (fmt's %d), 0 if none.
func leadingInt(s string) int {
	var n int
	fmt.Sscanf(s, "%d", &n)
	return n
}

// strs is an array's strings, what is not a string left out.
func (a *args) strs(key string) []string {
	return lookup(a, key, func(v fastjson.Lexer, found bool) (out []string, err error) {
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
		return out, err
	}, func(v any) (out []string) {
		list, _ := v.([]any)
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	})
}
