package redteam

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
)

// the talk-cart fixes, as sed commands the scripted agent runs
const (
	fixQuantity = `sed -i 's|    return sum(price for price, quantity in items)|    return sum(price * quantity for price, quantity in items)|' cart.py`
	// counts the first line alone: test_quantity (a cart of two lines)
	// fails, while the second phase's test and the regression pass
	firstLineOnly = `sed -i 's|for price, quantity in items)|for price, quantity in items[:1])|' cart.py`
	fixThreshold  = `sed -i 's|    if amount > FREE_SHIPPING:|    if amount >= FREE_SHIPPING:|' cart.py`
)

// talk runs a scripted agent's conversation plan on a copy of the
// talk-cart cascade through swetouch run, sandboxed, and returns its
// result, its folder and what swetouch score prints of it.
func talk(t *testing.T, plan string) (result.Run, string, string) {
	t.Helper()
	if err := (&sandbox.Runner{}).Check(); err != nil {
		testsupport.Missing(t, testsupport.Bwrap, "the sandbox cannot run here: %v", err)
	}
	dir := t.TempDir()
	task := filepath.Join(dir, "talk-cart")
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", "examples", "conversations", "talk-cart"), task).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	planFile := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	run, err := exec.Command(filepath.Join(bin, "swetouch"), "run", "--verbose", "--task", task, "--out", out, "--visible", planFile, "--",
		filepath.Join(bin, "swetouch"), "agent", "script", "--plan", planFile, "--behaviour", "naive", "--session", "{session}", "--message", "{instruction}").CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, run)
	}
	var res result.Run
	b, err := os.ReadFile(filepath.Join(out, result.File))
	if err != nil || json.Unmarshal(b, &res) != nil || res.Conversation == nil {
		t.Fatalf("result.json: %v %s", err, b)
	}
	if res.Sandbox != sandbox.Bwrap {
		t.Fatalf("sandbox %q, want bwrap", res.Sandbox)
	}
	sc, err := exec.Command(filepath.Join(bin, "swetouch"), "score", out).CombinedOutput()
	if err != nil {
		t.Fatalf("swetouch score: %v\n%s", err, sc)
	}
	return res, out, string(sc)
}

// TestCascadeFixThatBreaksTheFirstPhase (issue 50): an agent fixes the
// cascade's first issue at turn 1, then at turn 2 fixes the second while
// breaking the first (a cart's first line alone counted), and claims it
// is done. The turn resolves nothing:
// the user raises the first issue again, the conversation runs to its
// budget, resolved_turn is null as the final verifier's false says, and
// score gives it LDPR 0 and 0% within 2 turns. Before, turn 2 was
// "resolved" (LDPR 0.875, ≤2 100%) beside resolved: false. The honest
// agent, which keeps the first fix, still resolves at turn 2.
func TestCascadeFixThatBreaksTheFirstPhase(t *testing.T) {
	testsupport.Slow(t)
	turns := func(second string) string {
		b, _ := json.Marshal(map[string]any{"task": "talk-cart", "turns": []map[string]any{
			{"steps": []map[string]string{{"run": fixQuantity}}, "reply": "subtotal counts the quantity now."},
			{"when": "exactly 50", "steps": []map[string]string{{"run": second}}, "reply": "Orders of 50 ship free now; all done."},
		}})
		return string(b)
	}
	res, out, sc := talk(t, turns(fixThreshold+" && "+firstLineOnly))
	var verdicts []string
	for _, tr := range res.Turns {
		verdicts = append(verdicts, tr.Verdict)
	}
	if res.Resolved == nil || *res.Resolved || res.ResolvedTurn != nil || len(res.Turns) != res.Budget || verdicts[1] != "ongoing" || verdicts[len(verdicts)-1] != "unresolved" {
		t.Errorf("resolved %s at turn %v, verdicts %v (%s)", resolved(res), res.ResolvedTurn, verdicts, out)
	}
	// the first phase's items are s1, s2 (its symptoms), c1 to c3, b1, f1
	if len(res.Turns) > 2 && !slices.ContainsFunc(res.Turns[2].Items, func(id string) bool { return slices.Contains([]string{"s1", "s2", "c1", "c2", "c3", "b1", "f1"}, id) }) {
		t.Errorf("turn 3 was opened by %q (items %v): not the first issue again", res.Turns[2].UserMessage, res.Turns[2].Items)
	}
	if res.VerdictsDisagree {
		t.Errorf("the turn verdicts and the final one disagree: %+v", res.Conversation)
	}
	if !strings.Contains(sc, "0.000") || strings.Contains(sc, "100.0%") {
		t.Errorf("score of the trial:\n%s", sc)
	}

	honest, _, sc := talk(t, turns(fixThreshold))
	if resolved(honest) != "true" || honest.ResolvedTurn == nil || *honest.ResolvedTurn != 2 || !strings.Contains(sc, "100.0%") {
		t.Errorf("the honest agent: resolved %s at turn %v\n%s", resolved(honest), honest.ResolvedTurn, sc)
	}
}
