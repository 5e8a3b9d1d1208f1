package conversation

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConvert: py-discount's issue as a conversation. The opening says
// where and never what; every pool item is a sentence of the issue, a
// failing test, or the record's belief; the package passes its own
// checks; the same task converts to the same package.
func TestConvert(t *testing.T) {
	instr, err := os.ReadFile(filepath.Join("..", "..", "examples", "tasks", "py-discount", "instruction.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Name: "py-discount", Instruction: string(instr), Acceptance: []string{"test_percentage", "test_out_of_range"},
		Regression: []string{"test_total"}, MistakenBelief: "total rounds the prices down"}
	p, err := Convert(src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Opening != "Something is not right with pricing. Can you find out what and fix it?" {
		t.Errorf("opening %q", p.Opening)
	}
	sentences := splitSentences(string(instr))
	kinds := map[string]int{}
	for _, it := range p.Pool {
		kinds[it.Kind+"/"+it.Clarity+it.Veracity]++
		switch {
		case slices.Contains(sentences, it.Text), it.Text == "the test "+strings.Join(it.Tests, "")+" fails",
			it.Text == src.MistakenBelief, it.Text == "pricing does not behave the way it should":
		default:
			t.Errorf("%s: %q is not the issue's, a test's or the record's", it.ID, it.Text)
		}
		if it.Kind == Symptom && len(it.Tests) == 0 {
			t.Errorf("%s: a symptom of no test", it.ID)
		}
	}
	if kinds["symptom/precise"] != 3 || kinds["symptom/vague"] != 1 || kinds["cause/wrong"] != 1 || kinds["boundary/"] == 0 {
		t.Errorf("pool kinds %v", kinds)
	}
	// the first sentence says why ("as if it were money"): the correct cause
	if kinds["cause/correct"] != 1 {
		t.Errorf("no correct cause from the issue's reason: %v", kinds)
	}
	again, _ := Convert(src)
	if *again.Persona.Seed != *p.Persona.Seed || len(again.Pool) != len(p.Pool) {
		t.Errorf("converting twice differs")
	}
	if _, err := Convert(Source{Name: "x", Instruction: "Fix it."}); err == nil || !strings.Contains(err.Error(), "no test fails") {
		t.Errorf("a task without failing tests: %v", err)
	}
}
