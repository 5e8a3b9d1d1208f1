package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/internal/envlist"
)

func init() { Register(codex) }

var codex = Agent{
	// the endpoint's model is set in its config.toml
	Shell: []ShellTool{
		{Name: "exec_command", Args: commandArg("cmd")},                                                                       // unified exec
		{Name: "shell", Args: func(c string) map[string]any { return map[string]any{"command": []string{"bash", "-lc", c}} }}, // classic: an argv list
	},
	MCPConfig: &MCPConfig{
		Path: func(home string, getenv func(string) string) string {
			if d := getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(home, ".codex", "config.toml")
		},
		Wrap: wrapTOML,
	},
	Name: "codex", Bin: "codex", MCP: codexMCP, InstructionLast: true, Unreached: codexUnreached, Own: codexOwn, CallsBack: true,
	// without an endpoint, it runs on its user's login: one of these
	Login: Login{Files: []string{".codex/auth.json"}, Env: []string{"OPENAI_API_KEY", "CODEX_API_KEY"}},
	Turns: codexTurns,
	Command: func(l Launch, instruction, model string) []string {
		bin := l.Bin
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

// codexMCP adds [mcp_servers.NAME] tables to the run's own config.toml.
func codexMCP(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error) {
	home := envlist.Value(env, "CODEX_HOME")
	if home == "" {
		return nil, nil, errors.New("codex: no CODEX_HOME of the run's own to configure")
	}
	var b strings.Builder
	for _, s := range servers {
		cmd, args := s.relayed(swetouch)
		a, _ := json.Marshal(args)
		// Codex gives a server only a few of its own variables: the relay
		// needs the hub's socket and the workspace from the run
		fmt.Fprintf(&b, "\n[mcp_servers.%s]\ncommand = %s\nargs = %s\nenv_vars = [\"SWETOUCH_SOCKET\", \"SWETOUCH_WORKSPACE\"]\n", s.Name, strconv.Quote(cmd), a)
		if len(s.Env) > 0 {
			fmt.Fprintf(&b, "\n[mcp_servers.%s.env]\n", s.Name)
			keys := make([]string, 0, len(s.Env))
			for k := range s.Env {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "%s = %s\n", strconv.Quote(k), strconv.Quote(s.Env[k]))
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if _, err = f.WriteString(b.String()); err != nil {
		return nil, nil, err
	}
	// the servers' tools offered as they are: Codex hides an MCP server's
	// tools behind tool_search for every model its catalog says supports
	// it, so the run gets the catalog with that support off
	catalog, err := codexCatalog(argv[0], home)
	if err != nil {
		return nil, nil, err
	}
	return slices.Insert(argv, 2, "-c", "model_catalog_json="+strconv.Quote(catalog)), env, nil
}

// codexCatalog writes Codex's own model catalog (`codex debug models`)
// into home with supports_search_tool off for every model, and returns
// its path.
func codexCatalog(codex, home string) (string, error) {
	cmd := exec.Command(codex, "debug", "models")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home)
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("codex debug models: %w", err)
	}
	var doc map[string]json.RawMessage
	var models []map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil || json.Unmarshal(doc["models"], &models) != nil {
		return "", fmt.Errorf("codex debug models: not a catalog: %.80q", b)
	}
	for _, m := range models {
		m["supports_search_tool"] = json.RawMessage("false")
	}
	doc["models"], _ = json.Marshal(models)
	out, _ := json.Marshal(doc)
	p := filepath.Join(home, "models.json")
	return p, os.WriteFile(p, out, 0o600)
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

// codexTurns: the thread id of thread.started, the last agent message,
// and `exec resume [flags] ID PROMPT` (resume takes exec's flags).
var codexTurns = &Turns{
	Session: func(line []byte) string {
		var ev struct {
			Type   string `json:"type"`
			Thread string `json:"thread_id"`
		}
		if jsonLine(line, &ev) && ev.Type == "thread.started" {
			return ev.Thread
		}
		return ""
	},
	Reply: func(sofar string, line []byte) string {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if jsonLine(line, &ev) && ev.Type == "item.completed" && ev.Item.Type == "agent_message" {
			return ev.Item.Text
		}
		return sofar
	},
	Resume: func(argv []string, session string) []string {
		last := len(argv) - 1
		i := slices.Index(argv, "exec") + 1
		return slices.Concat(argv[:i], []string{"resume"}, argv[i:last], []string{session, argv[last]})
	},
}
