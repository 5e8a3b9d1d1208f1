package shim

import (
	"slices"
	"testing"
)

// TestChildEnv: the command runs without the shim directory on PATH (its
// nested shells are the real one); nothing else changes.
func TestChildEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		dir  string
		want []string
	}{
		{[]string{"A=1", "PATH=/s/bin:/usr/bin:/bin"}, "/s/bin", []string{"A=1", "PATH=/usr/bin:/bin"}},
		{[]string{"PATH=/usr/bin:/s/bin/:/bin"}, "/s/bin", []string{"PATH=/usr/bin:/bin"}},
		{[]string{"PATH=/usr/bin"}, "", []string{"PATH=/usr/bin"}},
		{[]string{"MYPATH=/s/bin", "PATH=/s/bin"}, "/s/bin", []string{"MYPATH=/s/bin", "PATH="}},
	} {
		if got := childEnv(tc.env, tc.dir); !slices.Equal(got, tc.want) {
			t.Errorf("childEnv(%q, %q) = %q, want %q", tc.env, tc.dir, got, tc.want)
		}
	}
}
