package main

import (
	"encoding/json"
	"os"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// readJSONFile decodes one JSON document from path into v; an error names
// the file, the line and, where known, the field, as bad input.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return badInput("%v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return badInput("%v", jsonerr.Locate(path, b, 0, "", err))
	}
	return nil
}
