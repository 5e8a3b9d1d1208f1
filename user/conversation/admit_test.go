package conversation_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user/conversation"
)

// cart is a copy of the example cascade talk-cart, changed by edit (a
// path in the task's folder to its new content).
func cart(t *testing.T, edit map[string]func(string) string) (*task.Task, *conversation.Package) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "talk-cart")
	if _, err := task.CopyRegular(filepath.Join("..", "..", "examples", "conversations", "talk-cart"), dir); err != nil {
		t.Fatal(err)
	}
	for name, f := range edit {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		changed := f(string(b))
		if changed == string(b) {
			t.Fatalf("%s: the edit changed nothing (the example changed?)", name)
		}
		os.WriteFile(filepath.Join(dir, name), []byte(changed), 0o755)
	}
	tk, err := task.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := conversation.LoadTask(tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk, ct.Package
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// TestAdmission (UserSWE U5): the example cascade is admitted, each of
// its states run by its own tests; each condition, broken alone, refuses
// it naming the condition and the package's field.
func TestAdmission(t *testing.T) {
	ctx := context.Background()
	tk, pkg := cart(t, nil)
	a, err := conversation.Admit(ctx, tk, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Admitted {
		t.Fatalf("talk-cart refused: %+v", a.Refusals)
	}
	for state, want := range map[string]map[string]string{
		"base":     {"test_quantity": "fail", "test_line_total": "fail", "test_free_at_threshold": "fail", "test_empty": "pass"},
		"after:p1": {"test_quantity": "pass", "test_line_total": "pass", "test_free_at_threshold": "fail", "test_empty": "pass"},
		"gold":     {"test_quantity": "pass", "test_line_total": "pass", "test_free_at_threshold": "pass", "test_empty": "pass"},
	} {
		for id, r := range want {
			if got := a.States[state][id]; got != r {
				t.Errorf("%s: %s %s, want %s", state, id, got, r)
			}
		}
	}

	for _, c := range []struct {
		name       string
		edit       map[string]func(string) string
		cond, fld  string
		detailPart string
	}{
		{"a typo'd id", map[string]func(string) string{"conversation.json": replace(`["test_quantity", "test_line_total"]`, `["test_quantiy", "test_line_total"]`)},
			conversation.CondListed, "phases[0].acceptance[0]", `no test "test_quantiy"`},
		{"the base passes", map[string]func(string) string{"repo/cart.py": replace("price for price", "price * quantity for price")},
			conversation.CondBase, "phases[0].acceptance[0]", `"test_quantity" passes on the task's own code`},
		{"the gold fails", map[string]func(string) string{"solution/solve.sh": replace("sed -i", "true")},
			conversation.CondGold, "phases[0].acceptance[0]", `"test_quantity" does not pass with the reference solution (fail)`},
		{"no fix for the first phase", map[string]func(string) string{"conversation.json": replace(`, "fix": "solution/p1.diff"`, "")},
			conversation.CondIntermediate, "phases[0].fix", "needs the phase's own fix"},
		{"the first fix passes the second phase", map[string]func(string) string{"solution/p1.diff": func(s string) string {
			return replace("@@ -6,7 +6,7 @@", "@@ -6,7 +6,8 @@")(replace(" def shipping(amount):", " def shipping(amount):\n+    return 0")(s))
		}},
			conversation.CondIntermediate, "phases[1].acceptance[0]", `"test_free_at_threshold" passes with p1 fixed alone`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, pkg := cart(t, c.edit)
			a, err := conversation.Admit(ctx, tk, pkg)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range a.Refusals {
				found = found || r.Condition == c.cond && r.Field == c.fld && strings.Contains(r.Detail, c.detailPart)
			}
			if a.Admitted || !found {
				t.Errorf("admitted %v, refusals %+v; want %s at %s: %s", a.Admitted, a.Refusals, c.cond, c.fld, c.detailPart)
			}
			err = a.Err(filepath.Join(tk.Dir, conversation.File))
			if err == nil || !strings.Contains(err.Error(), "conversation.json: field "+c.fld) {
				t.Errorf("the error names no file and field: %v", err)
			}
		})
	}
}

// TestAdmissionCached: an admission is kept by the task's digest, so it
// runs once per task; a changed file of the task, or tests run another
// way, check it again.
func TestAdmissionCached(t *testing.T) {
	ctx := context.Background()
	tk, pkg := cart(t, nil)
	c := conversation.Cache{Dir: t.TempDir()}
	for i, want := range []bool{false, true} {
		a, cached, err := c.Admit(ctx, tk, pkg, "unsandboxed")
		if err != nil || !a.Admitted || cached != want {
			t.Fatalf("admission %d: cached %v (want %v), %+v, %v", i, cached, want, a, err)
		}
	}
	if _, cached, _ := c.Admit(ctx, tk, pkg, "sandboxed"); cached {
		t.Error("an admission unsandboxed stood for a sandboxed one")
	}
	os.WriteFile(filepath.Join(tk.Repo, "cart.py"), []byte("def subtotal(items):\n    return 0\n"), 0o644)
	a, cached, err := c.Admit(ctx, tk, pkg, "unsandboxed")
	if err != nil || cached || a.Admitted {
		t.Errorf("a changed task: cached %v, admitted %v, %v", cached, a.Admitted, err)
	}
}
