// Package jsoncheck checks JSON documents against JSON Schemas with a
// real validator, for tests that must show a document stays valid.
package jsoncheck

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Valid fails t unless doc matches schema.
func Valid(t testing.TB, schema, doc []byte) {
	t.Helper()
	s, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", s); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		t.Fatalf("document: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v", doc, err)
	}
}
