package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/event"
)

func init() { Register(claude) }

var claude = Agent{
	Name: "claude", Bin: "claude", MCP: claudeMCP, OfflineModel: "claude-sonnet-4-5", NativeRead: "Read",
	Shell: []ShellTool{{Name: "Bash", Args: commandArg("command")}},
	MCPConfig: &MCPConfig{
		Path: func(string, func(string) string) string { return ".mcp.json" },
		Wrap: func(data []byte, swetouch string) ([]byte, int, error) {
			return wrapJSON(data, "mcpServers", swetouch, false)
		},
	},
	// without an endpoint, it runs on its user's login: one of these
	Login: Login{Files: []string{".claude/.credentials.json"}, Env: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}},
	// its start-up reads the shell's environment with a bare `env` and
	// writes its shell snapshot in a login shell (bash -c -l); every
	// command of the model's comes inside its eval wrapper
	Own:       claudeOwn,
	CallsBack: true, // its PreToolUse hook
	Unreached: claudeUnreached,
	Turns:     claudeTurns,
	Command: func(l Launch, instruction, model string) []string {
		bin, swetouch := l.Bin, l.Swetouch
		args := []string{bin, "-p", instruction, "--output-format", "stream-json", "--verbose",
			"--allowedTools", "Bash,Read,Edit,Write,Glob,Grep", "--permission-mode", "acceptEdits",
			"--settings", claudeSettings(swetouch)}
		if model != "" {
			args = append(args, "--model", model)
		}
		if l.StepLimit > 0 {
			// its own limit on its agentic turns, one model call each
			args = append(args, "--max-turns", strconv.Itoa(l.StepLimit))
		}
		return args
	},
	Env: func(url, swetouch, scratch string) []string {
		env := []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1"}
		if url != "" {
			env = append(env, "ANTHROPIC_BASE_URL="+url)
			if os.Getenv("ANTHROPIC_API_KEY") == "" && os.Getenv("ANTHROPIC_AUTH_TOKEN") == "" {
				env = append(env, "ANTHROPIC_API_KEY=swetouch-offline")
			}
		}
		// a home of the run's own: the user's settings, hooks, memory
		// and sessions stay out of the run, and the run out of them;
		// without an endpoint, the user's login comes along
		home, err := os.MkdirTemp(scratch, "claude-home-")
		if err != nil {
			return env
		}
		config := filepath.Join(home, ".claude")
		os.MkdirAll(config, 0o700)
		if user, err := os.UserHomeDir(); err == nil && url == "" {
			if b, err := os.ReadFile(filepath.Join(user, ".claude", ".credentials.json")); err == nil {
				os.WriteFile(filepath.Join(config, ".credentials.json"), b, 0o600)
			}
		}
		return append(env, "HOME="+home, "CLAUDE_CONFIG_DIR="+config)
	},
}

// claudeSettings installs a PostToolUse hook on Claude Code's native
// tools: a Read or an edit is reported when it happens, and the user's
// message comes back as additional context (Bash goes through the shim).
func claudeSettings(swetouch string) string {
	hook := map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "Read|Edit|Write|MultiEdit|NotebookEdit",
		"hooks": []any{map[string]any{"type": "command", "command": shellQuote(swetouch) + " hook claude"}}}}}}
	b, _ := json.Marshal(hook)
	return string(b)
}

// ClaudeToolEvent is the event of a Claude Code tool call as its
// PostToolUse hook reports it: a Read with its exact lines. Other tools
// give nothing: Bash went through the shim, and edits are the watcher's.
func ClaudeToolEvent(ws, tool string, input json.RawMessage) []event.Event {
	if tool != "Read" {
		return nil
	}
	var in struct {
		Path   string `json:"file_path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		return nil
	}
	p := repoPath(ws, in.Path)
	sc := event.FileScope(p)
	if in.Offset > 0 || in.Limit > 0 {
		start := max(in.Offset, 1) // Claude's offset is the first line's number
		limit := in.Limit
		if limit <= 0 {
			limit = 2000 // Claude's default page
		}
		sc = event.LineScope(p, start, start+limit-1)
	}
	return []event.Event{{Kind: event.Read, Source: "agent", Actor: event.Agent, Tool: "Read", Scopes: []event.Scope{sc}}}
}

// claudeMCP gives Claude Code the servers in a config file of the run's
// own (--strict-mcp-config: none of the user's or the project's), and
// allows their tools.
func claudeMCP(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error) {
	cfg := map[string]any{}
	var allow []string
	for _, s := range servers {
		cmd, args := s.relayed(swetouch)
		cfg[s.Name] = map[string]any{"type": "stdio", "command": cmd, "args": args, "env": mcpEnv(s)}
		allow = append(allow, "mcp__"+s.Name)
	}
	p, err := writeJSON(scratch, "claude-mcp-", "config.json", map[string]any{"mcpServers": cfg})
	if err != nil {
		return nil, nil, err
	}
	if i := slices.Index(argv, "--allowedTools"); i >= 0 && i+1 < len(argv) {
		argv[i+1] += "," + strings.Join(allow, ",")
	}
	// the servers' tools are offered as they are, not found through its
	// ToolSearch tool first: a run's few servers fit
	return append(argv, "--mcp-config", p, "--strict-mcp-config"), append(env, "ENABLE_TOOL_SEARCH=false"), nil
}

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

// claudeTurns: the session id of the newest init event (it can change on
// resume), the result's text, and `--resume ID` with the new prompt.
var claudeTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Session string `json:"session_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "system" && ev.Subtype == "init" {
			return ev.Session
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type    string `json:"type"`
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
		}
		if jsonLine(line, &ev) && ev.Type == "result" && !ev.IsError {
			return ev.Result
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		return append(slices.Clone(argv), "--resume", session)
	},
}
