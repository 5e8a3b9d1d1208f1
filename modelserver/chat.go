package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
)

// OpenAI Chat Completions with tools: what mini-swe-agent (through
// litellm) and most OpenAI-compatible agents speak. A request that
// offers no tools is a side request (the user's model, a title) and
// gets the script's text turns (Server.chat), unless its system message
// asks for fenced commands (text.go: mini-swe-agent's text format).

// parseChat reads a chat request that offers tools: their names, how
// many answers with tool calls its history holds, and the newest tool
// result.
func parseChat(body []byte) (*request, bool, error) {
	var b struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []any           `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, false, fmt.Errorf("chat request: %v", err)
	}
	if len(b.Tools) == 0 {
		return nil, false, nil
	}
	r := &request{provider: "chat", model: b.Model, body: body, stream: b.Stream}
	for _, t := range b.Tools {
		r.tools = append(r.tools, t.Function.Name)
	}
	for _, m := range b.Messages {
		switch {
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			r.rounds++
		case m.Role == "tool":
			r.lastResult = textOf(m.Content)
		}
	}
	return r, true, nil
}

// writeChat answers with the turn: its text, and its calls as tool calls.
func writeChat(w io.Writer, req *request, t Turn, at place) {
	var calls []any
	for i, c := range t.Calls {
		name, args := resolve(c, req.tools)
		calls = append(calls, map[string]any{"id": at.callID("call", i), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(args)}})
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if t.Text != "" {
		msg["content"] = t.Text
	}
	if req.fence != "" {
		// a text-action agent: its commands in its text
		msg["content"], calls = textActions(req, t), nil
	}
	finish := "stop"
	if len(calls) > 0 {
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	id := at.callID("chatcmpl", 0)
	usage := map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !req.stream {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion", "model": req.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		w.Write(b)
		return
	}
	delta := map[string]any{"role": "assistant", "content": msg["content"]}
	if len(calls) > 0 {
		indexed := make([]any, len(calls))
		for i, c := range calls {
			m := c.(map[string]any)
			indexed[i] = map[string]any{"index": i, "id": m["id"], "type": "function", "function": m["function"]}
		}
		delta["tool_calls"] = indexed
	}
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "model": req.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}})
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "model": req.model,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, "usage": usage})
	io.WriteString(w, "data: [DONE]\n\n")
}
