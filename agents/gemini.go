package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/swetouch/swetouch/event"
)

func init() { Register(gemini) }

var gemini = Agent{
	Name: "gemini", Bin: "gemini", MCP: geminiMCP, OfflineModel: "gemini-2.5-pro", NativeRead: "read_file", Unreached: geminiUnreached, Own: geminiOwn,
	Shell: []ShellTool{{Name: "run_shell_command", Args: commandArg("command")}},
	MCPConfig: &MCPConfig{
		Path: func(home string, _ func(string) string) string {
			return filepath.Join(home, ".gemini", "settings.json")
		},
		Wrap: func(data []byte, swetouch string) ([]byte, int, error) {
			return wrapJSON(data, "mcpServers", swetouch, false)
		},
	},
	// without an endpoint, it runs on its user's login: one of these
	Login: Login{Files: []string{".gemini/oauth_creds.json"}, Env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"}},
	Turns: geminiTurns,
	Command: func(l Launch, instruction, model string) []string {
		bin := l.Bin
		args := []string{bin, "-p", instruction, "-o", "stream-json", "--yolo", "--skip-trust"}
		if model != "" {
			args = append(args, "-m", model)
		}
		return args
	},
	Env: func(url, swetouch, scratch string) []string {
		if url == "" {
			return nil
		}
		env := []string{"GOOGLE_GEMINI_BASE_URL=" + url}
		if os.Getenv("GEMINI_API_KEY") == "" {
			env = append(env, "GEMINI_API_KEY=swetouch-offline")
		}
		// an API key needs "gemini-api-key" auth in ~/.gemini/settings.json:
		// give the agent a home of its own rather than touch the user's
		if home, err := os.MkdirTemp(scratch, "gemini-home-"); err == nil {
			os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
			os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`+"\n"), 0o644)
			env = append(env, "HOME="+home)
		}
		return env
	},
	Observe: geminiEvents,
}

// geminiEvents reads Gemini CLI's stream-json output: read_file calls
// give exact read scopes (offset is 0-based, limit a line count).
func geminiEvents(ws string, line []byte) []event.Event {
	var ev struct {
		Type   string `json:"type"`
		Tool   string `json:"tool_name"`
		Params struct {
			Path   string `json:"file_path"`
			Offset *int   `json:"offset"`
			Limit  int    `json:"limit"`
		} `json:"parameters"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "tool_use" || ev.Tool != "read_file" || ev.Params.Path == "" {
		return nil
	}
	sc := pagedScope(repoPath(ws, ev.Params.Path), ev.Params.Offset, ev.Params.Limit)
	return []event.Event{{Kind: event.Read, Source: "agent", Actor: event.Agent, Tool: "read_file", Scopes: []event.Scope{sc}}}
}

// geminiMCP gives Gemini CLI the servers in a system settings file of the
// run's own (GEMINI_CLI_SYSTEM_SETTINGS_PATH), which --yolo lets it call.
func geminiMCP(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error) {
	cfg := map[string]any{}
	for _, s := range servers {
		cmd, args := s.relayed(swetouch)
		cfg[s.Name] = map[string]any{"command": cmd, "args": args, "env": mcpEnv(s), "trust": true}
	}
	p, err := writeJSON(scratch, "gemini-system-", "settings.json", map[string]any{"mcpServers": cfg})
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+p), nil
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

// geminiTurns: the init event's session id, the assistant's text since
// its last tool call (it streams in deltas), and `--resume ID` in the
// same directory.
var geminiTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Session string `json:"session_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "init" {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content string `json:"content"`
			Delta   bool   `json:"delta"`
		}
		switch {
		case !jsonLine(line, &ev):
		case ev.Type == "tool_use":
			return ""
		case ev.Type == "message" && ev.Role == "assistant" && ev.Delta:
			return sofar + ev.Content
		case ev.Type == "message" && ev.Role == "assistant":
			return ev.Content
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		return append(slices.Clone(argv), "--resume", session)
	},
}
