package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/envlist"
)

func init() { Register(opencode) }

var opencode = Agent{
	// the endpoint's model is set in its opencode.json
	Shell: []ShellTool{{Name: "bash", Args: func(c string) map[string]any { return map[string]any{"command": c, "description": "run a command"} }}},
	MCPConfig: &MCPConfig{
		Path: func(string, func(string) string) string { return "opencode.json" },
		Wrap: func(data []byte, swetouch string) ([]byte, int, error) { return wrapJSON(data, "mcp", swetouch, true) },
	},
	Name: "opencode", NativeRead: "read", Bin: "opencode", MCP: opencodeMCP, InstructionLast: true, Unreached: opencodeUnreached,
	// without an endpoint, it runs on its user's login: one of these
	Login: Login{Files: []string{".local/share/opencode/auth.json"}, Env: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"}},
	Turns: opencodeTurns,
	Command: func(l Launch, instruction, model string) []string {
		bin := l.Bin
		args := []string{bin, "run", "--format", "json"}
		if model != "" {
			args = append(args, "-m", model)
		}
		return append(args, instruction)
	},
	Env: func(url, swetouch, scratch string) []string {
		env := []string{"OPENCODE_DISABLE_AUTOUPDATE=1"}
		// a data folder of the run's own: its sessions outlive each
		// process (a conversation resumes them; a sandboxed home does
		// not last), and the user's stay out of the run; without an
		// endpoint, the user's login comes along
		if data, err := os.MkdirTemp(scratch, "opencode-data-"); err == nil {
			os.MkdirAll(filepath.Join(data, "opencode"), 0o700)
			if home, err := os.UserHomeDir(); err == nil && url == "" {
				if b, err := os.ReadFile(filepath.Join(home, ".local", "share", "opencode", "auth.json")); err == nil {
					os.WriteFile(filepath.Join(data, "opencode", "auth.json"), b, 0o600)
				}
			}
			env = append(env, "XDG_DATA_HOME="+data)
		}
		if url == "" {
			return env
		}
		// a provider for the endpoint, in a config file outside the
		// workspace (the Responses API through the bundled AI SDK)
		cfg := map[string]any{
			"$schema":    "https://opencode.ai/config.json",
			"provider":   map[string]any{"swetouch": map[string]any{"npm": "@ai-sdk/openai", "options": map[string]any{"baseURL": url + "/v1", "apiKey": "swetouch-offline"}, "models": map[string]any{"model": map[string]any{}}}},
			"model":      "swetouch/model",
			"permission": map[string]any{"bash": "allow", "edit": "allow"},
		}
		if p, err := writeJSON(scratch, "opencode-", "opencode.json", cfg); err == nil {
			env = append(env, "OPENCODE_CONFIG="+p, "OPENCODE_DISABLE_MODELS_FETCH=1")
		}
		return env
	},
	Observe: opencodeEvents,
}

// opencodeEvents reads opencode's JSON events: read tool calls give
// exact read scopes (offset is 0-based, limit a line count).
func opencodeEvents(ws string, line []byte) []event.Event {
	var ev struct {
		Type string `json:"type"`
		Part struct {
			Tool  string `json:"tool"`
			State struct {
				Input struct {
					Path   string `json:"filePath"`
					Offset *int   `json:"offset"`
					Limit  int    `json:"limit"`
				} `json:"input"`
			} `json:"state"`
		} `json:"part"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "tool_use" || ev.Part.Tool != "read" || ev.Part.State.Input.Path == "" {
		return nil
	}
	in := ev.Part.State.Input
	return []event.Event{{Kind: event.Read, Source: "agent", Actor: event.Agent, Tool: "read", Scopes: []event.Scope{pagedScope(repoPath(ws, in.Path), in.Offset, in.Limit)}}}
}

// opencodeMCP adds the servers to the run's opencode.json (made when the
// run has none), each as a local server, allowed by the permission there.
func opencodeMCP(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error) {
	cfg := map[string]any{"$schema": "https://opencode.ai/config.json"}
	path := envlist.Value(env, "OPENCODE_CONFIG")
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	mcp := map[string]any{}
	for _, s := range servers {
		cmd, args := s.relayed(swetouch)
		mcp[s.Name] = map[string]any{"type": "local", "command": append([]string{cmd}, args...), "environment": mcpEnv(s), "enabled": true}
	}
	cfg["mcp"] = mcp
	if path != "" {
		b, _ := json.MarshalIndent(cfg, "", "  ")
		return argv, env, os.WriteFile(path, b, 0o644)
	}
	p, err := writeJSON(scratch, "opencode-", "opencode.json", cfg)
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "OPENCODE_CONFIG="+p), nil
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

// opencodeTurns: the session id every event carries, the last text part,
// and `run --session ID` before the prompt.
var opencodeTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Session string `json:"sessionID"`
		}
		if jsonLine(line, &ev) {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Text string `json:"text"`
			} `json:"part"`
		}
		if jsonLine(line, &ev) && ev.Type == "text" && ev.Part.Text != "" {
			return ev.Part.Text
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		last := len(argv) - 1
		return append(append(slices.Clone(argv[:last]), "--session", session), argv[last])
	},
}
