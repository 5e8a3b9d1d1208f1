package patch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// strictBase and strictDiff are a file and a two-hunk git diff of it, the
// material TestStrictAgainstGitApply corrupts.
const strictBase = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\nq\n"

const strictDiff = "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n" +
	"@@ -1,4 +1,4 @@\n a\n b\n-c\n+C\n d\n" +
	"@@ -12,4 +12,5 @@\n l\n m\n+M2\n n\n o\n"

// corruptions are the diff's lines broken one at a time, the way a hand
// edit or a lossy copy breaks them: a hunk header's @@ turned to @!, a
// line's first character replaced, a line of prose inserted after it, the
// line dropped.
func corruptions(diff string) map[string]string {
	lines := strings.SplitAfter(diff, "\n")
	lines = lines[:len(lines)-1]
	out := map[string]string{}
	with := func(i int, repl ...string) string {
		return strings.Join(lines[:i], "") + strings.Join(repl, "") + strings.Join(lines[i+1:], "")
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "@@ ") {
			out[lineName(i, "@@ to @!")] = with(i, "@!"+l[2:])
		}
		out[lineName(i, "first byte to ?")] = with(i, "?"+l[1:])
		out[lineName(i, "prose after it")] = with(i, l, "this line was pasted in\n")
		out[lineName(i, "dropped")] = with(i)
	}
	return out
}

func lineName(i int, how string) string { return fmt.Sprintf("line %02d: %s", i+1, how) }

// TestStrictAgainstGitApply: on every corruption of a diff, when real
// `git apply --check` refuses it, Parse refuses it or Apply lands
// nothing; when both take it, the file comes out as git writes it. The
// broken hunk header of issue 50 (git: "only garbage") was accepted and
// "applied" with no hunk at all.
func TestStrictAgainstGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gitRefused, bothTook, stricter := 0, 0, 0
	for name, diff := range corruptions(strictDiff) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strictBase), 0o644)
			df := filepath.Join(t.TempDir(), "x.diff")
			os.WriteFile(df, []byte(diff), 0o644)
			cmd := exec.Command("git", "apply", df)
			cmd.Dir = dir
			gitOut, gitErr := cmd.CombinedOutput()
			gitTook := gitErr == nil
			gitResult, _ := os.ReadFile(filepath.Join(dir, "f.txt"))

			mine := t.TempDir()
			os.WriteFile(filepath.Join(mine, "f.txt"), []byte(strictBase), 0o644)
			fds, err := Parse(diff)
			took := false
			if err == nil {
				rep, aerr := Apply(Dir(mine), fds)
				took = aerr == nil && rep.Applied
				if took && len(rep.Hunks) == 0 {
					t.Fatalf("applied with no hunk: %+v", rep)
				}
			}
			myResult, _ := os.ReadFile(filepath.Join(mine, "f.txt"))
			switch {
			case !gitTook && took:
				t.Fatalf("git apply refuses (%s) but Parse and Apply took it", strings.TrimSpace(string(gitOut)))
			case !gitTook:
				gitRefused++
			case took:
				bothTook++
				if string(myResult) != string(gitResult) {
					t.Fatalf("both applied it, differently:\n%s\ngit:\n%s", myResult, gitResult)
				}
			default:
				stricter++
				t.Logf("only git applies it; Parse: %v", err)
			}
		})
	}
	t.Logf("%d corruptions: git refused %d (so did we), both applied %d identically, only git applied %d", len(corruptions(strictDiff)), gitRefused, bothTook, stricter)
}

// TestNoHunkAppliesNothing: a file diff without a hunk (one built by a
// caller: Parse refuses it) is reported failed, not applied.
func TestNoHunkAppliesNothing(t *testing.T) {
	if _, err := Parse("diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n"); err == nil {
		t.Fatal("Parse took a section with no hunk")
	}
	rep, err := Apply(memFS{"f": "a\n"}, []*FileDiff{{OldPath: "f", NewPath: "f"}})
	if err != nil || rep.Applied || len(rep.Hunks) != 1 || rep.Hunks[0].Method != Failed {
		t.Fatalf("%+v %v", rep, err)
	}
}
