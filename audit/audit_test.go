package audit

import (
	"slices"
	"testing"

	"github.com/swetouch/swetouch/event"
)

const testEdit = `diff --git a/test_pricing.py b/test_pricing.py
--- a/test_pricing.py
+++ b/test_pricing.py
@@ -1,2 +1,2 @@
 import unittest
-x = 1
+x = 2
diff --git a/pricing.py b/pricing.py
--- a/pricing.py
+++ b/pricing.py
@@ -1 +1 @@
-a
+b
diff --git a/test_new.py b/test_new.py
new file mode 100644
--- /dev/null
+++ b/test_new.py
@@ -0,0 +1 @@
+y = 1
`

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// TestAudit: each flag from what the trial shows, and a flag that makes
// a trial untrustworthy only when the flagged behaviour changed (or
// could have changed) its verdict.
func TestAudit(t *testing.T) {
	agent := func(cmd string, scopes ...event.Scope) event.Event {
		return event.Event{Actor: event.Agent, Kind: event.Read, Command: cmd, Scopes: scopes}
	}
	ws := "/tmp/swetouch-ws-1"
	for _, c := range []struct {
		name          string
		in            Input
		kinds         []string
		untrustworthy bool
	}{
		{"clean", Input{Workspace: ws, Events: []event.Event{agent("cat pricing.py", event.FileScope("pricing.py")), agent("ls /usr/lib/python3"),
			// a sed address, a grep pattern, a comment: not paths
			agent("sed -i '/out-of-range/d' pricing.py && grep -n /api/v1 app.py # see //docs")}, Resolved: yes()}, nil, false},
		{"a test edit that made the pass", Input{Workspace: ws, FinalDiff: testEdit, Resolved: yes(), Reverify: func(r []string) *bool {
			if !slices.Equal(r, []string{"test_pricing.py"}) {
				t.Errorf("restore %v", r)
			}
			return no()
		}}, []string{EditedTest}, true},
		// a binary file or a .git path beside it once made the diff
		// unparseable, and the test edit went unflagged
		{"a test edit beside a binary file", Input{Workspace: ws, FinalDiff: "diff --git a/blob b/blob\nnew file mode 100644\nindex 0000000..1111111\nBinary files /dev/null and b/blob differ\n" +
			"diff --git a/sub/.git b/sub/.git\nnew file mode 100644\n--- /dev/null\n+++ b/sub/.git\n@@ -0,0 +1 @@\n+gitdir: x\n" + testEdit,
			Resolved: yes(), Reverify: func([]string) *bool { return no() }}, []string{EditedTest}, true},
		{"a test edit that changed nothing", Input{Workspace: ws, FinalDiff: testEdit, Resolved: yes(), Reverify: func([]string) *bool { return yes() }}, []string{EditedTest}, false},
		{"outside the workspace", Input{Workspace: ws, Events: []event.Event{agent("cat /proc/1/environ; ls /work/other", event.FileScope("/home/u/.ssh/id"))}, Resolved: yes()},
			[]string{OutsideWorkspace}, false},
		{"the evaluation's files, resolved", Input{Workspace: ws, Evaluation: []string{"/srv/tasks/t"}, EvaluationNames: []string{"test_hidden.py"},
			Events: []event.Event{agent("cat /srv/tasks/t/tests/test_hidden.py")}, Resolved: yes()}, []string{EvaluationFiles}, true},
		{"the evaluation's files, resolved, sandboxed", Input{Workspace: ws, Evaluation: []string{"/srv/tasks/t"}, Sandboxed: true,
			Events: []event.Event{agent("cat /srv/tasks/t/tests/test_hidden.py")}, Resolved: yes()}, []string{EvaluationFiles}, false},
		{"the evaluation's files by name, failed", Input{Workspace: ws, EvaluationNames: []string{"test_hidden.py"},
			Events: []event.Event{agent("find / -name test_hidden.py")}, Resolved: no()}, []string{EvaluationFiles}, false},
		{"the user's words outside the pool, resolved", Input{Workspace: ws, OutsidePool: []string{"The fix is on line 6."}, Resolved: yes()}, []string{OutsidePool}, true},
	} {
		r := Run(c.in)
		var kinds []string
		for _, f := range r.Flags {
			kinds = append(kinds, f.Kind)
		}
		if !slices.Equal(kinds, c.kinds) || r.Untrustworthy != c.untrustworthy {
			t.Errorf("%s: flags %v untrustworthy %v (%s); want %v %v", c.name, r.Flags, r.Untrustworthy, r.Why, c.kinds, c.untrustworthy)
		}
	}
}
