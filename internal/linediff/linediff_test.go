package linediff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHunksAsGit holds the hunks to git diff's for edits where the line
// diff has one answer: the same ranges, lines and function names in the
// headers (git's default: the nearest line above starting with a letter,
// '_' or '$').
func TestHunksAsGit(t *testing.T) {
	var body strings.Builder
	body.WriteString("import os\n\n")
	for i := range 12 {
		body.WriteString("def f" + string(rune('a'+i)) + "(x):\n    y = x + 1\n    return y\n\n")
	}
	body.WriteString("class " + strings.Repeat("Long", 30) + ":\n    pass\n    pass\n    pass\n    pass\n    pass\n")
	old := body.String()
	cases := map[string]string{
		"one line in a function": strings.Replace(old, "def fc(x):\n    y = x + 1", "def fc(x):\n    y = x + 2", 1),
		"two hunks":              strings.Replace(strings.Replace(old, "def fb(x):\n    y = x + 1", "def fb(x):\n    y = 0", 1), "def fk(x):\n    y = x + 1\n", "def fk(x):\n", 1),
		"at the top":             "import sys\n" + old[len("import os\n"):],
		"under a long name":      strings.Replace(old, "    pass\n    pass\n    pass\n    pass\n    pass\n", "    pass\n    pass\n    pass\n    pass\n    done = True\n", 1),
		"no newline at the end":  old + "tail",
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for name, now := range cases {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(a, []byte(old), 0o644)
			os.WriteFile(b, []byte(now), 0o644)
			cmd := exec.Command("git", "diff", "--no-index", "--no-color", a, b)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			out, _ := cmd.Output()
			want := string(out)
			want = want[strings.Index(want, "\n@@ ")+1:]
			var got strings.Builder
			Hunks(&got, Lines(old, now))
			if got.String() != want {
				t.Errorf("hunks:\n%s\ngit's:\n%s", got.String(), want)
			}
		})
	}
}
