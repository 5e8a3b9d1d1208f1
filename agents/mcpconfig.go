package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// WrapMCPConfig rewrites an agent's MCP configuration so that every stdio
// server runs behind `swetouch mcp --`, in the agent's own format (its
// MCPConfig: Claude Code's .mcp.json and Gemini CLI's settings.json,
// "mcpServers": {"command", "args"}; opencode's opencode.json, "mcp":
// {"type": "local", "command": [...]}; Codex's config.toml,
// [mcp_servers.NAME] command, args). Servers already wrapped and remote
// (HTTP) servers are left alone; everything else in the file is kept. It
// returns the new content and how many servers it wrapped.
func WrapMCPConfig(agent string, data []byte, swetouch string) ([]byte, int, error) {
	a, err := Lookup(agent)
	if err != nil {
		return nil, 0, err
	}
	if a.MCPConfig == nil {
		return nil, 0, fmt.Errorf("agent %q keeps no MCP configuration of its own", agent)
	}
	return a.MCPConfig.Wrap(data, swetouch)
}

// commandArg is a shell tool that takes the command line in one string
// argument.
func commandArg(name string) func(string) map[string]any {
	return func(c string) map[string]any { return map[string]any{name: c} }
}

func wrapped(swetouch, cmd string, args []string) bool {
	return cmd == swetouch && len(args) > 0 && args[0] == "mcp"
}

func wrapJSON(data []byte, key, swetouch string, commandList bool) ([]byte, int, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("not a JSON object: %v", err)
	}
	var servers map[string]map[string]json.RawMessage
	if raw, ok := doc[key]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, 0, fmt.Errorf("field %s: %v", key, err)
		}
	}
	n := 0
	for name, srv := range servers {
		if commandList {
			var cmd []string
			if json.Unmarshal(srv["command"], &cmd) != nil || len(cmd) == 0 || wrapped(swetouch, cmd[0], cmd[1:]) {
				continue
			}
			srv["command"], _ = json.Marshal(append([]string{swetouch, "mcp", "--"}, cmd...))
		} else {
			var cmd string
			var args []string
			if json.Unmarshal(srv["command"], &cmd) != nil || cmd == "" {
				continue // a remote server
			}
			json.Unmarshal(srv["args"], &args)
			if wrapped(swetouch, cmd, args) {
				continue
			}
			srv["command"], _ = json.Marshal(swetouch)
			srv["args"], _ = json.Marshal(append([]string{"mcp", "--", cmd}, args...))
		}
		servers[name] = srv
		n++
	}
	if n == 0 {
		return data, 0, nil
	}
	doc[key], _ = json.Marshal(servers)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, 0, err
	}
	return out.Bytes(), n, nil
}

// tomlPatterns are compiled on first use: this package is linked into
// the binary the shell shim starts for every command.
var tomlPatterns = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^\s*\[\s*mcp_servers\.([^\]\s]+)\s*\]\s*$`),
		regexp.MustCompile(`^(\s*command\s*=\s*)("(?:[^"\\]|\\.)*")\s*$`),
		regexp.MustCompile(`^(\s*args\s*=\s*)(\[.*\])\s*$`),
	}
})

// wrapTOML rewrites [mcp_servers.NAME] tables line by line: the
// `command = "…"` and single-line `args = [...]` keys; the rest of the
// file is kept byte for byte.
func wrapTOML(data []byte, swetouch string) ([]byte, int, error) {
	re := tomlPatterns()
	tomlTable, tomlCommand, tomlArgs := re[0], re[1], re[2]
	lines := strings.SplitAfter(string(data), "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		if !tomlTable.MatchString(strings.TrimRight(lines[i], "\r\n")) {
			continue
		}
		cmdAt, argsAt := -1, -1
		var cmd string
		var args []string
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "["); j++ {
			l := strings.TrimRight(lines[j], "\r\n")
			if m := tomlCommand.FindStringSubmatch(l); m != nil {
				c, err := strconv.Unquote(m[2])
				if err != nil {
					return nil, 0, fmt.Errorf("line %d: command: %v", j+1, err)
				}
				cmdAt, cmd = j, c
			} else if m := tomlArgs.FindStringSubmatch(l); m != nil {
				if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
					return nil, 0, fmt.Errorf("line %d: args: want a one-line list of strings", j+1)
				}
				argsAt = j
			}
		}
		if cmdAt < 0 || wrapped(swetouch, cmd, args) {
			i = j - 1
			continue
		}
		newArgs, _ := json.Marshal(append([]string{"mcp", "--", cmd}, args...))
		lines[cmdAt] = "command = " + strconv.Quote(swetouch) + "\n"
		if argsAt >= 0 {
			lines[argsAt] = "args = " + string(newArgs) + "\n"
		} else {
			lines[cmdAt] += "args = " + string(newArgs) + "\n"
		}
		n++
		i = j - 1
	}
	return []byte(strings.Join(lines, "")), n, nil
}
