package agents

import (
	"strings"
	"testing"
)

func TestWrapMCPConfig(t *testing.T) {
	const st = "/opt/swetouch"
	tests := []struct {
		agent, in, want string
		n               int
	}{
		{"claude", `{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/w"],"env":{"A":"1"}},"web":{"type":"http","url":"http://x"}},"other":true}`,
			`{
  "mcpServers": {
    "fs": {
      "args": [
        "mcp",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/w"
      ],
      "command": "/opt/swetouch",
      "env": {
        "A": "1"
      }
    },
    "web": {
      "type": "http",
      "url": "http://x"
    }
  },
  "other": true
}
`, 1},
		{"opencode", `{"mcp":{"fs":{"type":"local","command":["mcp-server-filesystem","/w"]}}}`,
			`{
  "mcp": {
    "fs": {
      "command": [
        "/opt/swetouch",
        "mcp",
        "--",
        "mcp-server-filesystem",
        "/w"
      ],
      "type": "local"
    }
  }
}
`, 1},
		{"codex", "model = \"gpt-5.5\"\n\n[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server\"]\nenv = { A = \"1\" }\n\n[mcp_servers.solo]\ncommand = \"solo-server\"\n\n[other]\nx = 1\n",
			"model = \"gpt-5.5\"\n\n[mcp_servers.fs]\ncommand = \"/opt/swetouch\"\nargs = [\"mcp\",\"--\",\"npx\",\"-y\",\"server\"]\nenv = { A = \"1\" }\n\n[mcp_servers.solo]\ncommand = \"/opt/swetouch\"\nargs = [\"mcp\",\"--\",\"solo-server\"]\n\n[other]\nx = 1\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			got, n, err := WrapMCPConfig(tt.agent, []byte(tt.in), st)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || n != tt.n {
				t.Errorf("got (%d)\n%s\nwant (%d)\n%s", n, got, tt.n, tt.want)
			}
			again, n2, err := WrapMCPConfig(tt.agent, got, st)
			if err != nil || n2 != 0 || string(again) != string(got) {
				t.Errorf("not idempotent: %d %v\n%s", n2, err, again)
			}
		})
	}
	if _, _, err := WrapMCPConfig("claude", []byte(`[1]`), st); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("bad input: %v", err)
	}
}
