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
		{[]string{"-c", "-l", "echo hi"}, "echo hi", true}, // a login shell's command
		{[]string{"-lc", "echo hi"}, "echo hi", true},
		{[]string{"--login", "-c", "echo hi"}, "echo hi", true},
		{[]string{"-l"}, "", false},
		{[]string{"-lic", "echo hi"}, "", false}, // interactive
		{[]string{"--rcfile", "x", "-c", "echo hi"}, "", false},
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
