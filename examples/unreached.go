package examples

import (
	"encoding/json"
	"strings"
)

// Each agent's own report that its model could not be reached, read from
// its structured output: the agent writes these events itself, and a
// model's words only ever appear quoted inside them.

// claudeUnreached: the stream's result ends on an API error (not logged
// in, a refused or failing endpoint, no such model).
func claudeUnreached(line []byte) string {
	var ev struct {
		Type     string `json:"type"`
		Terminal string `json:"terminal_reason"`
		IsError  bool   `json:"is_error"`
		Result   string `json:"result"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "result" || !ev.IsError || ev.Terminal != "api_error" {
		return ""
	}
	return orText(ev.Result, "API error")
}

// opencodeUnreached: an error event from the provider (it cannot connect,
// the key is refused, the model is unknown).
func opencodeUnreached(line []byte) string {
	var ev struct {
		Type  string `json:"type"`
		Error struct {
			Name string `json:"name"`
			Data struct {
				Message string `json:"message"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "error" || !strings.HasPrefix(ev.Error.Name, "Provider") && ev.Error.Name != "APIError" {
		return ""
	}
	return ev.Error.Name + ": " + orText(ev.Error.Data.Message, "no message")
}

// codexUnreached: `codex exec --json` ends a turn that got no answer with
// turn.failed (after its own retries), or reports an error event.
func codexUnreached(line []byte) string {
	var ev struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return ""
	}
	switch ev.Type {
	case "turn.failed":
		return orText(ev.Error.Message, "turn failed")
	case "error":
		return orText(ev.Message, "error")
	}
	return ""
}

// geminiUnreached: the stream's result, or an error event, says the
// request to the model failed.
func geminiUnreached(line []byte) string {
	var ev struct {
		Type    string `json:"type"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Error   struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return ""
	}
	switch {
	case ev.Type == "result" && ev.Status == "error":
		return orText(ev.Error.Message, "error")
	case ev.Type == "error":
		return orText(ev.Message, orText(ev.Error.Message, "error"))
	}
	return ""
}

func orText(s, d string) string {
	if s = strings.TrimSpace(s); s == "" {
		return d
	}
	return s
}
