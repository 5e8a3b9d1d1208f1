package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/jsoncheck"
	"github.com/swetouch/swetouch/session"
)

// TestStructuredMessage: the message goes into structuredContent as each
// kind of outputSchema allows, and what comes out still matches the
// schema (checked by a JSON Schema validator); a schema that can take it
// nowhere leaves structuredContent alone and the channel unconfirmed.
func TestStructuredMessage(t *testing.T) {
	msg := []session.Message{{Order: 1, Text: "I clamped the discount."}}
	tests := []struct {
		name, schema, structured, want string
		channel                        string
	}{
		{"no schema", ``, `{"content":"def f"}`, `{"content":"def f","user_message":"<user-message>\nI clamped the discount.\n</user-message>"}`, "mcp-result"},
		{"open schema", `{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]}`, `{"content":"def f"}`,
			`{"content":"def f","user_message":"<user-message>\nI clamped the discount.\n</user-message>"}`, "mcp-result"},
		{"open schema, key taken", `{"type":"object","properties":{"user_message":{"type":"integer"}}}`, `{"user_message":3}`,
			`{"swetouch_user_message":"<user-message>\nI clamped the discount.\n</user-message>","user_message":3}`, "mcp-result"},
		{"closed schema", `{"type":"object","properties":{"n":{"type":"integer"},"text":{"type":"string"}},"required":["n","text"],"additionalProperties":false}`,
			`{"n":1,"text":"def f\n"}`, `{"n":1,"text":"def f\n\n<user-message>\nI clamped the discount.\n</user-message>"}`, "mcp-result"},
		{"closed, no string", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`,
			`{"n":1}`, `{"n":1}`, "unconfirmed:mcp-content-only"},
		{"no structuredContent", `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`, ``, ``, "mcp-result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			place := schemaPlacement(json.RawMessage(tt.schema))
			result := `{"content":[{"type":"text","text":"def f"}]`
			if tt.structured != "" {
				result += `,"structuredContent":` + tt.structured
			}
			result += "}"
			if got := place.channel(json.RawMessage(result)); got != tt.channel {
				t.Errorf("channel %q, want %q", got, tt.channel)
			}
			out, err := appendMessages([]byte(`{"jsonrpc":"2.0","id":7,"result":`+result+`}`), msg, place)
			if err != nil {
				t.Fatal(err)
			}
			var resp struct {
				ID     int `json:"id"`
				Result struct {
					Content    []struct{ Text string } `json:"content"`
					Structured json.RawMessage         `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &resp); err != nil {
				t.Fatal(err)
			}
			if resp.ID != 7 || len(resp.Result.Content) != 2 || !strings.Contains(resp.Result.Content[1].Text, "clamped") {
				t.Errorf("content: %s", out)
			}
			if string(resp.Result.Structured) != tt.want {
				t.Errorf("structuredContent:\n%s\nwant\n%s", resp.Result.Structured, tt.want)
			}
			if tt.schema != "" && tt.want != "" {
				jsoncheck.Valid(t, []byte(tt.schema), resp.Result.Structured)
			}
		})
	}
}
