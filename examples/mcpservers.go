package examples

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/internal/envlist"
	"github.com/swetouch/swetouch/internal/jsonerr"
	"github.com/swetouch/swetouch/sandbox"
)

// MCPServer is one stdio MCP server an agent is given for a run, from the
// ecosystem's usual servers file. "{workspace}" in Args stands for the
// run's workspace; `swetouch mcp` puts it in when it starts the server.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

// serverName is what every agent accepts in a tool's qualified name
// (Claude's mcp__NAME__tool, Codex's NAME__tool).
var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// LoadMCPServers reads {"mcpServers": {NAME: {command, args, env}}}, the
// file Claude Code, Gemini CLI and Cursor all take, sorted by name. An
// error names the file, the line and the field.
func LoadMCPServers(path string) ([]MCPServer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, jsonerr.Locate(path, b, 0, "", err)
	}
	if len(doc.Servers) == 0 {
		return nil, fmt.Errorf("%s: field mcpServers: no servers (want {\"mcpServers\": {NAME: {\"command\": …, \"args\": […]}}})", path)
	}
	type server struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     string            `json:"url"`
		Type    string            `json:"type"`
	}
	servers := map[string]server{}
	for _, name := range slices.Sorted(maps.Keys(doc.Servers)) {
		raw := doc.Servers[name]
		var s server
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, jsonerr.Locate(path, b, int64(bytes.Index(b, raw)), "mcpServers."+name, err)
		}
		servers[name] = s
	}
	var out []MCPServer
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		switch {
		case !serverName.MatchString(name):
			return nil, fmt.Errorf("%s: field mcpServers.%s: a server's name is letters, digits, _ and - only", path, strconv.Quote(name))
		case s.URL != "" || (s.Type != "" && s.Type != "stdio"):
			return nil, fmt.Errorf("%s: field mcpServers.%s: only stdio servers (command, args) can be relayed here; put `swetouch mcp --upstream URL` in front of a remote one", path, name)
		case s.Command == "":
			return nil, fmt.Errorf("%s: field mcpServers.%s.command: empty", path, name)
		}
		out = append(out, MCPServer{Name: name, Command: s.Command, Args: s.Args, Env: s.Env})
	}
	return out, nil
}

// relayed is the server's command line behind the relay.
func (s MCPServer) relayed(swetouch string) (string, []string) {
	return swetouch, append([]string{"mcp", "--", s.Command}, s.Args...)
}

// Install is what the sandboxed agent needs to see to start the server:
// its executable and, for an npm package, the node_modules holding it.
func (s MCPServer) Install() []string {
	exe, err := exec.LookPath(s.Command)
	if err != nil || !filepath.IsAbs(exe) {
		return nil
	}
	return sandbox.Install(exe)
}

// mcpEnv is a server's environment in a config file: its own, and never
// null (some agents reject a null env).
func mcpEnv(s MCPServer) map[string]string {
	if s.Env == nil {
		return map[string]string{}
	}
	return s.Env
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
	p, err := writeJSON(scratch, "claude-mcp-", map[string]any{"mcpServers": cfg})
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

// geminiMCP gives Gemini CLI the servers in a system settings file of the
// run's own (GEMINI_CLI_SYSTEM_SETTINGS_PATH), which --yolo lets it call.
func geminiMCP(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error) {
	cfg := map[string]any{}
	for _, s := range servers {
		cmd, args := s.relayed(swetouch)
		cfg[s.Name] = map[string]any{"command": cmd, "args": args, "env": mcpEnv(s), "trust": true}
	}
	p, err := writeJSON(scratch, "gemini-system-", map[string]any{"mcpServers": cfg})
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+p), nil
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
	p, err := writeJSON(scratch, "opencode-", cfg)
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "OPENCODE_CONFIG="+p), nil
}

// writeJSON writes v to a new file in a new folder under scratch.
func writeJSON(scratch, prefix string, v any) (string, error) {
	dir, err := os.MkdirTemp(scratch, prefix)
	if err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "config.json")
	if strings.HasPrefix(prefix, "opencode") {
		p = filepath.Join(dir, "opencode.json")
	}
	return p, os.WriteFile(p, b, 0o644)
}
