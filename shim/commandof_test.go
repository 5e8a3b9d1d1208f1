package shim

import "testing"

func TestCommandOf(t *testing.T) {
	tests := []struct {
		args []string
		cmd  string
		ok   bool
	}{
		{[]string{"-c", "echo hi"}, "echo hi", true},
		{[]string{"-c", "echo hi", "name", "a"}, "echo hi", true},
		{[]string{"-ec", "echo hi"}, "echo hi", true},
		{[]string{"-c", "-e", "echo hi"}, "echo hi", true},
		{[]string{"-o", "pipefail", "-c", "echo hi"}, "echo hi", true},
		{[]string{"-c", "--", "echo hi"}, "echo hi", true},
		{[]string{"-c", "-l", "echo hi"}, "", false}, // Claude Code's start-up: a login shell
		{[]string{"-lc", "echo hi"}, "", false},
		{[]string{"-i"}, "", false},
		{[]string{"script.sh", "-c"}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		cmd, ok := commandOf(tt.args)
		if cmd != tt.cmd || ok != tt.ok {
			t.Errorf("%q: got %q %v, want %q %v", tt.args, cmd, ok, tt.cmd, tt.ok)
		}
	}
}
