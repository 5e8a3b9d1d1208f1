package examples

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// Preset runs a closed agent, unmodified, through the shim: its own
// non-interactive flags, its model endpoint, and the reader of its event
// stream for what the shell cannot see. docs/agents/<name>.md says what
// each one shows and hides.
type Preset struct {
	Name string
	// Command is the agent's command line for an instruction; model may
	// be empty (the agent's default); swetouch is this tool's executable,
	// for agents whose hooks call it back.
	Command func(bin, instruction, model, swetouch string) []string
	// Env points the agent at a model endpoint ("" keeps its own);
	// swetouch is this tool's executable, for agents that call it back
	// through their hooks; scratch is a directory of the run's own, for
	// the agent's configuration files, which the caller removes.
	Env func(modelURL, swetouch, scratch string) []string
	// Observe turns a line of the agent's output into events; ws is the
	// workspace, for making paths repo-relative. nil when the agent's
	// hooks report its tool calls instead.
	Observe func(ws string, line []byte) []event.Event
	// Own names the commands the agent runs by itself rather than for its
	// model (nil: none); the trajectory keeps them apart from its actions.
	Own func(command string) bool
	// Unreached reads a line of the agent's output for its own report
	// that its model could not be reached (session.RunConfig.Unreached).
	Unreached func(line []byte) string
	// OfflineModel is the model asked for when an endpoint is given and
	// no model is: one the scripted server plays, where the agent's own
	// default would route through models it does not (Gemini's "auto").
	OfflineModel string
	// instructionLast: the instruction is the command line's last
	// argument, and extra flags go before it.
	instructionLast bool
	// mcp gives the agent MCP servers in its own configuration
	mcp func(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error)
	bin string
}

// Launch is what one run of a preset is given.
type Launch struct {
	Bin      string // the agent's binary
	ModelURL string // the endpoint ("" keeps the agent's own)
	Model    string // the model ("" for OfflineModel with an endpoint, else the agent's default)
	Swetouch string // this tool's executable, for hooks and relays
	Scratch  string // a folder of the run's own, for homes and configuration
	Args     []string
	// MCP are servers the agent is given, each behind `swetouch mcp`,
	// with their tools allowed in the agent's own terms
	MCP []MCPServer
}

// Started is how a preset's run starts.
type Started struct {
	Argv, Env []string
	// Visible are host paths the sandboxed agent needs besides its own
	// install: the MCP servers' installs
	Visible []string
}

// Start is a preset's command line and environment for one run: the
// preset's flags, then l.Args (before the instruction where it comes
// last), and the MCP servers in the agent's own configuration.
func (p *Preset) Start(l Launch) (Started, error) {
	model := l.Model
	if model == "" && l.ModelURL != "" {
		model = p.OfflineModel
	}
	argv := p.Command(l.Bin, "{instruction}", model, l.Swetouch)
	var instruction []string
	if p.instructionLast {
		argv, instruction = slices.Clip(argv[:len(argv)-1]), slices.Clone(argv[len(argv)-1:])
	}
	argv = append(argv, l.Args...)
	st := Started{Env: p.Env(l.ModelURL, l.Swetouch, l.Scratch)}
	if len(l.MCP) > 0 {
		var err error
		if argv, st.Env, err = p.mcp(l.MCP, l.Swetouch, l.Scratch, argv, st.Env); err != nil {
			return Started{}, fmt.Errorf("%s: MCP servers: %w", p.Name, err)
		}
		for _, s := range l.MCP {
			st.Visible = append(st.Visible, s.Install()...)
		}
	}
	st.Argv = append(argv, instruction...)
	return st, nil
}

// Presets are the agents swetouch knows how to run.
var presets = map[string]Preset{
	"claude": {
		Name: "claude", bin: "claude", mcp: claudeMCP, OfflineModel: "claude-sonnet-4-5",
		// its start-up reads the shell's environment with a bare `env`;
		// every command of the model's comes inside its eval wrapper
		Own:       func(command string) bool { return command == "env" },
		Unreached: claudeUnreached,
		Command: func(bin, instruction, model, swetouch string) []string {
			args := []string{bin, "-p", instruction, "--output-format", "stream-json", "--verbose",
				"--allowedTools", "Bash,Read,Edit,Write,Glob,Grep", "--permission-mode", "acceptEdits",
				"--settings", claudeSettings(swetouch)}
			if model != "" {
				args = append(args, "--model", model)
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
	},
	"gemini": {
		Name: "gemini", bin: "gemini", mcp: geminiMCP, OfflineModel: "gemini-2.5-pro", Unreached: geminiUnreached,
		Command: func(bin, instruction, model, swetouch string) []string {
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
	},
	"codex": {
		// the endpoint's model is set in its config.toml
		Name: "codex", bin: "codex", mcp: codexMCP, instructionLast: true, Unreached: codexUnreached,
		Command: func(bin, instruction, model, swetouch string) []string {
			args := []string{bin, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"}
			if model != "" {
				args = append(args, "-m", model)
			}
			return append(args, instruction)
		},
		Env: func(url, swetouch, scratch string) []string {
			// a CODEX_HOME of the run's own: a PostToolUse hook that reports
			// every tool call to the hub and returns the user's messages as
			// additional context, and a model provider for the endpoint
			home, err := os.MkdirTemp(scratch, "codex-home-")
			if err != nil {
				return nil
			}
			hook := map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": ".*",
				"hooks": []any{map[string]any{"type": "command", "command": shellQuote(swetouch) + " hook codex", "timeout": 30}}}}}}
			b, _ := json.MarshalIndent(hook, "", "  ")
			os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o644)
			// INITIAL_AGENT_MODE is the ACP adapter's: full access, which
			// is Codex's sandbox off, from the first prompt
			env := []string{"CODEX_HOME=" + home, "INITIAL_AGENT_MODE=agent-full-access"}
			// Codex's own sandbox off: swetouch's is the boundary, and with
			// bwrap installed Codex wraps each command in it, which fails
			// inside ours and, beside it, hides the command from the shim
			cfg := codexUnsandboxed
			if url != "" {
				cfg += fmt.Sprintf("model = %q\nmodel_provider = \"swetouch\"\n\n[model_providers.swetouch]\nname = \"swetouch\"\nbase_url = %q\nenv_key = \"OFFLINE_MODEL_KEY\"\nwire_api = \"responses\"\n", "gpt-5.5", url+"/v1")
				env = append(env, "OFFLINE_MODEL_KEY=swetouch-offline")
			} else if user, err := os.UserHomeDir(); err == nil {
				// keep the user's own settings and login
				if b, err := os.ReadFile(filepath.Join(user, ".codex", "config.toml")); err == nil {
					cfg += withoutKeys(string(b), "sandbox_mode", "approval_policy")
				}
				if b, err := os.ReadFile(filepath.Join(user, ".codex", "auth.json")); err == nil {
					os.WriteFile(filepath.Join(home, "auth.json"), b, 0o600)
				}
			}
			os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
			return env
		},
	},
	"opencode": {
		// the endpoint's model is set in its opencode.json
		Name: "opencode", bin: "opencode", mcp: opencodeMCP, instructionLast: true, Unreached: opencodeUnreached,
		Command: func(bin, instruction, model, swetouch string) []string {
			args := []string{bin, "run", "--format", "json"}
			if model != "" {
				args = append(args, "-m", model)
			}
			return append(args, instruction)
		},
		Env: func(url, swetouch, scratch string) []string {
			env := []string{"OPENCODE_DISABLE_AUTOUPDATE=1"}
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
			if dir, err := os.MkdirTemp(scratch, "opencode-"); err == nil {
				b, _ := json.MarshalIndent(cfg, "", "  ")
				p := filepath.Join(dir, "opencode.json")
				if os.WriteFile(p, b, 0o644) == nil {
					env = append(env, "OPENCODE_CONFIG="+p, "OPENCODE_DISABLE_MODELS_FETCH=1")
				}
			}
			return env
		},
		Observe: opencodeEvents,
	},
}

// codexUnsandboxed opens Codex's config.toml: no sandbox of its own and
// no approvals (its top-level keys must come before any table).
const codexUnsandboxed = "sandbox_mode = \"danger-full-access\"\napproval_policy = \"never\"\n"

// withoutKeys is a TOML file without the top-level settings of keys (the
// lines before the first table that set them).
func withoutKeys(toml string, keys ...string) string {
	var b strings.Builder
	top := true
	for _, line := range strings.SplitAfter(toml, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			top = false
		}
		if top {
			k, _, ok := strings.Cut(t, "=")
			if ok && slices.Contains(keys, strings.Trim(strings.TrimSpace(k), `"'`)) {
				continue
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// shellQuote quotes a path for a hook command line.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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

// pagedScope is the lines a paged read tool returns: from the 0-based
// offset, limit lines (the whole file when neither is given).
func pagedScope(path string, offset *int, limit int) event.Scope {
	if offset == nil && limit <= 0 {
		return event.FileScope(path)
	}
	start := 1
	if offset != nil {
		start = *offset + 1
	}
	if limit <= 0 {
		limit = 2000
	}
	return event.LineScope(path, start, start+limit-1)
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

// ErrNoPreset is the error for an agent name without a preset.
var ErrNoPreset = errors.New("no preset")

// PresetFor returns the preset for an agent name and the path of its
// binary: on PATH, else in the install-agents cache.
func PresetFor(name string) (*Preset, string, error) {
	p, ok := presets[name]
	if !ok {
		return nil, "", fmt.Errorf("%w for agent %q (have %s)", ErrNoPreset, name, strings.Join(PresetNames(), ", "))
	}
	bin, err := FindAgent(p.bin)
	return &p, bin, err
}

// PresetNames are the agents with a preset, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FindAgent looks for an agent's binary on PATH, then where
// scripts/install-agents.sh puts it ($SWETOUCH_AGENTS, default
// ~/.cache/swetouch-agents).
func FindAgent(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join(AgentsDir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found on PATH or in %s (run scripts/install-agents.sh)", name, filepath.Dir(p))
	}
	return p, nil
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

// repoPath makes an agent's path repo-relative when it is in the
// workspace.
func repoPath(ws, p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if rel, err := filepath.Rel(ws, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		if rel, err := filepath.Rel(real, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// AgentsDir is where scripts/install-agents.sh installs the agents and the
// npm peers the tests use: $SWETOUCH_AGENTS, else ~/.cache/swetouch-agents.
func AgentsDir() string {
	if dir := os.Getenv("SWETOUCH_AGENTS"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "swetouch-agents")
}
