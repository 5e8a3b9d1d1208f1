package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

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

// writeJSON writes v as name in a new folder under scratch and returns
// its path.
func writeJSON(scratch, prefix, name string, v any) (string, error) {
	dir, err := os.MkdirTemp(scratch, prefix)
	if err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, b, 0o644)
}
