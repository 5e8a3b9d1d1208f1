package policy

import "testing"

// TestClearCorrect: UserSWE's ablation is a condition that never
// touches the code, so it needs no record.
func TestClearCorrect(t *testing.T) {
	c, err := ParseCondition("clear-correct")
	if err != nil || c != ClearCorrect || c.Acts() || c.NeedsRecord() {
		t.Errorf("%q %v: acts %v, needs a record %v", c, err, c.Acts(), c.NeedsRecord())
	}
	for _, c := range []Condition{CounterEdit, CoEdit, MessageOnly, CodeOnly} {
		if !c.Acts() || !c.NeedsRecord() {
			t.Errorf("%s does not act", c)
		}
	}
	if Vanilla.Acts() || Condition("").Acts() {
		t.Error("vanilla acts")
	}
}
