package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

func sse(w io.Writer, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// textOf flattens a content value: a string, or blocks with text.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
			if len(bl.Content) > 0 {
				b.WriteString(textOf(bl.Content))
			}
		}
		return b.String()
	}
	return string(raw)
}

// Anthropic Messages API.

func parseAnthropic(body []byte) (*request, error) {
	var b struct {
		Model    string                  `json:"model"`
		Stream   bool                    `json:"stream"`
		Tools    []struct{ Name string } `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("anthropic request: %v", err)
	}
	r := &request{provider: "anthropic", model: b.Model, body: body, stream: b.Stream}
	for _, t := range b.Tools {
		r.tools = append(r.tools, t.Name)
	}
	for _, m := range b.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		called := false
		for _, bl := range blocks {
			switch bl.Type {
			case "tool_result":
				r.lastResult = textOf(bl.Content)
			case "tool_use":
				called = true
			}
		}
		if called && m.Role == "assistant" {
			r.rounds++
		}
	}
	return r, nil
}

func writeAnthropic(w io.Writer, req *request, t Turn, at place) {
	msgID := at.callID("msg", 0)
	stop := "end_turn"
	var content []map[string]any
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.Calls {
		name, args := resolve(c, req.tools)
		var input any
		json.Unmarshal(args, &input)
		content = append(content, map[string]any{"type": "tool_use", "id": at.callID("toolu", i), "name": name, "input": input})
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 1, "output_tokens": 1}
	if !req.stream {
		b, _ := json.Marshal(map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		w.Write(b)
		return
	}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": msgID, "type": "message", "role": "assistant",
		"model": req.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, bl := range content {
		switch bl["type"] {
		case "text":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": bl["text"]}})
		case "tool_use":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": bl["id"], "name": bl["name"], "input": map[string]any{}}})
			args, _ := json.Marshal(bl["input"])
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// OpenAI Responses API.

func parseOpenAI(body []byte) (*request, error) {
	var b struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"` // a namespace's (Codex's MCP servers)
		} `json:"tools"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("openai request: %v", err)
	}
	r := &request{provider: "openai", model: b.Model, body: body, stream: b.Stream, custom: map[string]bool{}, namespaced: map[string][2]string{}}
	for _, t := range b.Tools {
		if t.Type == "namespace" {
			// offered as NS__NAME; called as NAME in namespace NS
			for _, in := range t.Tools {
				q := t.Name + "__" + in.Name
				r.tools = append(r.tools, q)
				r.namespaced[q] = [2]string{t.Name, in.Name}
			}
			continue
		}
		name := t.Name
		if name == "" {
			name = t.Type // local_shell and other built-ins
		}
		r.tools = append(r.tools, name)
		if t.Type == "custom" {
			r.custom[name] = true // freeform: called with a string input
		}
	}
	var items []struct {
		Type   string          `json:"type"`
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(b.Input, &items) == nil {
		// a turn's calls come as consecutive call items
		inCalls := false
		for _, it := range items {
			call := strings.HasSuffix(it.Type, "_call")
			if call && !inCalls {
				r.rounds++
			}
			inCalls = call
			if strings.HasSuffix(it.Type, "_call_output") {
				r.lastResult = textOf(it.Output)
			}
		}
	}
	return r, nil
}

func writeOpenAI(w io.Writer, req *request, t Turn, at place) {
	respID := at.callID("resp", 0)
	var items []map[string]any
	if t.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": at.callID("msg", 0), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}})
	}
	for i, c := range t.Calls {
		name, args := resolve(c, req.tools)
		callID := at.callID("call", i)
		if req.custom[name] {
			// a freeform tool (Codex's apply_patch) takes args {"input": "…"}
			var a struct {
				Input string `json:"input"`
			}
			json.Unmarshal(args, &a)
			items = append(items, map[string]any{"type": "custom_tool_call", "id": at.callID("ctc", i), "call_id": callID,
				"name": name, "input": a.Input, "status": "completed"})
			continue
		}
		item := map[string]any{"type": "function_call", "id": at.callID("fc", i), "call_id": callID,
			"name": name, "arguments": string(args), "status": "completed"}
		if ns, ok := req.namespaced[name]; ok {
			item["namespace"], item["name"] = ns[0], ns[1]
		}
		items = append(items, item)
	}
	usage := map[string]any{"input_tokens": 1, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 1,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 2}
	done := map[string]any{"id": respID, "object": "response", "status": "completed", "model": req.model, "output": items, "usage": usage}
	if !req.stream {
		b, _ := json.Marshal(done)
		w.Write(b)
		return
	}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.model, "output": []any{}}})
	for i, it := range items {
		if it["type"] != "message" {
			sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
			sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
			continue
		}
		// a message's text streams as the provider streams it: clients
		// that build the text from its deltas (the AI SDK) see it whole
		streamText(w, i, it, t.Text)
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": done})
}

// streamText writes a message output item as its text streams: added
// empty, the text as one delta, then done.
func streamText(w io.Writer, i int, item map[string]any, text string) {
	id := item["id"]
	empty := map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}
	part := func(text string) map[string]any {
		return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	}
	at := func(typ string, kv ...any) map[string]any {
		m := map[string]any{"type": typ, "item_id": id, "output_index": i, "content_index": 0}
		for k := 0; k+1 < len(kv); k += 2 {
			m[kv[k].(string)] = kv[k+1]
		}
		return m
	}
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": empty})
	sse(w, "response.content_part.added", at("response.content_part.added", "part", part("")))
	sse(w, "response.output_text.delta", at("response.output_text.delta", "delta", text))
	sse(w, "response.output_text.done", at("response.output_text.done", "text", text))
	sse(w, "response.content_part.done", at("response.content_part.done", "part", part(text)))
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
}

// Gemini generateContent / streamGenerateContent.

func parseGemini(body []byte, path string) (*request, error) {
	var b struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionCall     json.RawMessage `json:"functionCall"`
				FunctionResponse *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("gemini request: %v", err)
	}
	model := path[strings.LastIndex(path, "/models/")+len("/models/"):]
	model, _, _ = strings.Cut(model, ":")
	r := &request{provider: "gemini", model: model, body: body}
	for _, t := range b.Tools {
		for _, f := range t.FunctionDeclarations {
			r.tools = append(r.tools, f.Name)
		}
	}
	for _, c := range b.Contents {
		called := false
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				r.lastResult = string(p.FunctionResponse.Response)
			}
			called = called || len(p.FunctionCall) > 0
		}
		if called && c.Role == "model" {
			r.rounds++
		}
	}
	return r, nil
}

func writeGemini(w io.Writer, req *request, t Turn, at place) {
	var parts []any
	if t.Text != "" {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for i, c := range t.Calls {
		name, args := resolve(c, req.tools)
		var a any
		json.Unmarshal(args, &a)
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": at.callID("fn", i), "name": name, "args": a}})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  req.model,
	}
	if !req.stream {
		b, _ := json.Marshal(resp)
		w.Write(b)
		return
	}
	sse(w, "", resp)
}
