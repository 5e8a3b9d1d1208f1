package shim

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestScriptOf(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want script
		ok   bool
	}{
		{[]string{"do.sh", "a", "-c"}, script{path: "do.sh", args: []string{"a", "-c"}}, true},
		{[]string{"-e", "do.sh"}, script{opts: []string{"-e"}, path: "do.sh", args: []string{}}, true},
		{[]string{"-o", "pipefail", "--", "do.sh"}, script{opts: []string{"-o", "pipefail"}, path: "do.sh", args: []string{}}, true},
		{[]string{"-s", "a", "b"}, script{stdin: true, args: []string{"a", "b"}}, true},
		{[]string{"-es"}, script{opts: []string{"-e"}, stdin: true}, true},
		{nil, script{stdin: true}, true},
		{[]string{"-c", "echo"}, script{}, false},
		{[]string{"-lc", "echo"}, script{}, false},
		{[]string{"-i"}, script{}, false},
		{[]string{"--login", "do.sh"}, script{}, false},
		{[]string{"--rcfile", "x", "do.sh"}, script{}, false},
	} {
		got, ok := scriptOf(tc.args)
		if ok != tc.ok || ok && (got.path != tc.want.path || got.stdin != tc.want.stdin ||
			!slices.Equal(got.opts, tc.want.opts) || !slices.Equal(got.args, tc.want.args)) {
			t.Errorf("scriptOf(%q) = %+v %v, want %+v %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// TestStatements: a script's top-level commands whole (a pipeline, a
// loop, a here-document with its body), none of a function's own.
func TestStatements(t *testing.T) {
	src := "#!/bin/bash\nset -e\ncat a | head -3\nf() {\n  sed -i x b\n}\nfor i in 1 2; do\n  echo $i\ndone\ncat > c <<'EOF'\nbody\nEOF\nf; echo done # trailing\nexec python3 agent.py\n"
	got, err := statements([]byte(src), "t.sh", syntax.LangBash)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range got {
		texts = append(texts, s.text)
	}
	want := []string{"set -e", "cat a | head -3", "f() {\n  sed -i x b\n}", "for i in 1 2; do\n  echo $i\ndone",
		"cat > c <<'EOF'\nbody\nEOF", "f;", "echo done", "exec python3 agent.py"}
	if !slices.Equal(texts, want) {
		t.Errorf("statements:\n%q\nwant\n%q", texts, want)
	}
	if !got[len(got)-1].exec || got[0].exec {
		t.Errorf("exec marks: %+v", got)
	}
	if _, err := statements([]byte("if then fi ("), "bad.sh", syntax.LangBash); err == nil {
		t.Error("a script the parser cannot read: no error")
	}
}

// TestRewriteRunsAsTheScript: the rewritten script, run by the real
// shells with the hook answered, does what the script does (its output,
// $?, $0 and $LINENO, set -e after a failing test, dash's echo) and calls
// the hook once before each top-level command, in order.
func TestRewriteRunsAsTheScript(t *testing.T) {
	src := "#!/bin/sh\necho \"$0 $1 line $LINENO\"\n[ -f /nonexistent ] && echo x\necho \"st=$?\"\nf() { echo in f; }\nf | cat; g=$(echo sub)\necho $g 'a\\nb'\nexit 4\n"
	for _, shell := range []string{"bash", "dash"} {
		real, err := exec.LookPath(shell)
		if err != nil {
			t.Skip(err)
		}
		t.Run(shell, func(t *testing.T) {
			want, wantErr := exec.Command(real, "-e", "-c", src, "name", "one").Output()
			lang := langOf(shell)
			stmts, err := statements([]byte(src), "name", lang)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			log := filepath.Join(dir, "calls")
			// the hook's files as plain files: a FIFO needs its reader,
			// which RunScript is; here every call is answered at once
			ack := filepath.Join(dir, "ack")
			os.WriteFile(ack, []byte(strings.Repeat("\n", 64)), 0o644)
			text := strings.Replace(rewrite([]byte(src), stmts, log, ack, false), ">'"+log+"'", ">>'"+log+"'", 1)
			got, gotErr := exec.Command(real, "-e", "-c", text, "name", "one").Output()
			if string(got) != string(want) || exitCode(gotErr) != exitCode(wantErr) {
				t.Errorf("rewritten: %q exit %d; the script: %q exit %d", got, exitCode(gotErr), want, exitCode(wantErr))
			}
			calls, _ := os.ReadFile(log)
			var idx []string
			for _, l := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
				c, ok := parseCall(l)
				if !ok {
					t.Fatalf("call %q", l)
				}
				idx = append(idx, stmts[c.index].text+"/"+string(rune('0'+c.status)))
			}
			wantIdx := []string{`echo "$0 $1 line $LINENO"/0`, "[ -f /nonexistent ] && echo x/0", `echo "st=$?"/1`,
				"f() { echo in f; }/0", "f | cat;/0", "g=$(echo sub)/0", `echo $g 'a\nb'/0`, "exit 4/0"}
			if !slices.Equal(idx, wantIdx) {
				t.Errorf("calls:\n%q\nwant\n%q", idx, wantIdx)
			}
		})
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// TestSwetouchCommand: a hook's command (swetouch by path, quoted or
// not) passes the shim unrecorded; a command that only names it does not.
func TestSwetouchCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"'/opt/sw/bin/swetouch' hook claude": true,
		"/opt/sw/bin/swetouch hook codex":    true,
		"  \"/x/swetouch\" mcp -- srv":       true,
		"swetouch hook claude":               false, // not by path: PATH's, not necessarily ours
		"cat /opt/sw/bin/swetouch":           false,
		"/opt/swetouch-data/run.sh":          false,
	} {
		if got := swetouchCommand(cmd); got != want {
			t.Errorf("swetouchCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
