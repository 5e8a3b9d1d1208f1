// Package jsonerr says where in a JSON file a decoding error is: the
// file, the line and, where the decoder knows it, the field. Every
// JSON input swetouch reads reports its faults this way.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Locate is err, from decoding data (or its part starting at byte base,
// under field), as "file:line: …". A syntax error gives its line; a type
// error its line and field; an unknown field (DisallowUnknownFields) the
// line of the key. Any other error is named by the file alone.
func Locate(file string, data []byte, base int64, field string, err error) error {
	line := func(off int64) int {
		return 1 + bytes.Count(data[:min(max(int(off), 0), len(data))], []byte("\n"))
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d: invalid JSON: %v", file, line(base+se.Offset), err)
	case errors.As(err, &te):
		f := field
		if te.Field != "" {
			f = strings.TrimPrefix(field+"."+te.Field, ".")
		}
		if f == "" {
			return fmt.Errorf("%s:%d: want %s, got JSON %s", file, line(base+te.Offset), te.Type, te.Value)
		}
		return fmt.Errorf("%s:%d: field %s: want %s, got JSON %s", file, line(base+te.Offset), f, te.Type, te.Value)
	}
	// an unknown field is reported once its object is read: find the key
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.Index(data[base:], []byte(key+":")); i >= 0 {
			return fmt.Errorf("%s:%d: %v", file, line(base+int64(i)), err)
		}
		if i := bytes.Index(data[base:], []byte(key)); i >= 0 {
			return fmt.Errorf("%s:%d: %v", file, line(base+int64(i)), err)
		}
	}
	return fmt.Errorf("%s: %v", file, err)
}
