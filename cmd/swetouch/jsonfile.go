package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// readJSONFile decodes one JSON document from path into v; an error names
// the file, the line and, where known, the field, as bad input.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return badInput("%v", err)
	}
	err = json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	line := func(off int64) int { return 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n")) }
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badInput("%s:%d: invalid JSON: %v", path, line(se.Offset), err)
	case errors.As(err, &te):
		return badInput("%s:%d: field %s: want %s, got JSON %s", path, line(te.Offset), te.Field, te.Type, te.Value)
	}
	return badInput("%s: %v", path, fmt.Sprint(err))
}
