package patch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRefusesEscapingPaths(t *testing.T) {
	for _, tc := range []struct{ name, diff, want string }{
		{"climbs out", "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", `line 1: path "../x" leaves the workspace`},
		{"absolute", "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", `line 1: path "/etc/passwd" is absolute`},
		{"into .git", "diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n", `path ".git/config" is inside .git`},
		{"second file", "diff --git a/ok b/ok\n--- a/ok\n+++ b/ok\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/d/../../y b/d/../../y\n--- a/d/../../y\n+++ b/d/../../y\n@@ -1 +1 @@\n-a\n+b\n", `line 7: path "d/../../y" leaves`},
		{"quoted climb", "diff --git \"a/\\056\\056/z\" \"b/\\056\\056/z\"\n--- \"a/\\056\\056/z\"\n+++ \"b/\\056\\056/z\"\n@@ -1 +1 @@\n-a\n+b\n", `path "../z" leaves`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.diff)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// Differential with git: the names git C-quotes come back as they are.
func TestQuotedPathsAsGitWritesThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	names := []string{"tab\there.py", `back\slash.py`, "quote\"d.py", "naïve.py", "new\nline.py"}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.quotepath=true"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte("a\n"), 0o644)
	}
	git("add", "-A")
	git("commit", "-qm", "base")
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte("b\n"), 0o644)
	}
	fds, err := Parse(git("diff"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, fd := range fds {
		got[fd.OldPath+"|"+fd.NewPath] = true
	}
	for _, n := range names {
		if !got[n+"|"+n] {
			t.Errorf("%q not parsed back; got %v", n, got)
		}
	}
}
