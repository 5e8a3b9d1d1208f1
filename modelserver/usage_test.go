package modelserver

import (
	"encoding/json"
	"testing"
)

// TestCallUsage: the tokens of one call in every provider's shape, whole
// and streamed, counted as the provider counted them.
func TestCallUsage(t *testing.T) {
	for _, c := range []struct {
		name, path, request, response string
		model                         string
		want                          Usage
	}{
		{"anthropic stream", "/v1/messages", `{"model":"claude-x","stream":true}`,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":8,\"output_tokens\":1}}}\n\n" +
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":42}}\n\n",
			"claude-x", Usage{Calls: 1, Input: 120, Cached: 100, Output: 42}},
		{"openai responses stream", "/v1/responses", `{"model":"gpt-x"}`,
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n" +
				"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":300,\"input_tokens_details\":{\"cached_tokens\":256},\"output_tokens\":20}}}\n\n",
			"gpt-x", Usage{Calls: 1, Input: 300, Cached: 256, Output: 20}},
		{"chat completions", "/v1/chat/completions", `{"model":"m"}`,
			`{"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":10}}}`,
			"m", Usage{Calls: 1, Input: 50, Cached: 10, Output: 7}},
		{"gemini stream", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", `{"contents":[]}`,
			"data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":80,\"candidatesTokenCount\":3}}\n\n" +
				"data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":80,\"cachedContentTokenCount\":64,\"candidatesTokenCount\":9}}\n\n",
			"gemini-2.5-pro", Usage{Calls: 1, Input: 80, Cached: 64, Output: 9}},
		{"an error answer", "/v1/messages", `{"model":"claude-x"}`, `{"type":"error","error":{"message":"overloaded"}}`,
			"claude-x", Usage{Calls: 1}},
	} {
		m, u := CallUsage(Entry{Path: c.path, Request: json.RawMessage(c.request), Response: c.response})
		if m != c.model || u != c.want {
			t.Errorf("%s: %s %+v, want %s %+v", c.name, m, u, c.model, c.want)
		}
	}
}
