package shim

import (
	"slices"
	"testing"
)

// TestChildEnv: the command runs without the shim directory on PATH (its
// nested shells are the real one), marked as inside a command for the
// shim at /bin/bash; nothing else changes.
func TestChildEnv(t *testing.T) {
	in := EnvInside + "=1" // a shell within the command is part of it
	for _, tc := range []struct {
		env  []string
		dir  string
		want []string
	}{
		{[]string{"A=1", "PATH=/s/bin:/usr/bin:/bin"}, "/s/bin", []string{"A=1", "PATH=/usr/bin:/bin", in}},
		{[]string{"PATH=/usr/bin:/s/bin/:/bin"}, "/s/bin", []string{"PATH=/usr/bin:/bin", in}},
		{[]string{"PATH=/usr/bin"}, "", []string{"PATH=/usr/bin", in}},
		{[]string{"MYPATH=/s/bin", "PATH=/s/bin"}, "/s/bin", []string{"MYPATH=/s/bin", "PATH=", in}},
		{[]string{in, "B=2"}, "", []string{"B=2", in}},
	} {
		if got := childEnv(tc.env, tc.dir); !slices.Equal(got, tc.want) {
			t.Errorf("childEnv(%q, %q) = %q, want %q", tc.env, tc.dir, got, tc.want)
		}
	}
}
