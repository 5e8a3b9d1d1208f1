package author

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/task"
)

// TestGate: the examples' Counter-Edits pass; a harmless edit (the reference
// still solves the task after it) and an edit that does not apply do not.
func TestGate(t *testing.T) {
	testsupport.Slow(t)
	dir := filepath.Join("..", "examples", "tasks", "py-discount")
	tk, err := task.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := task.LoadRecords(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ce := recs[0].CounterEdit.Interventions[0].Patch.Diff
	harmless := strings.Replace(ce, "+    percent = min(max(percent, 0), 100)  # out-of-range discounts are clamped", "+    # the discount is a percentage", 1)
	stale := strings.ReplaceAll(ce, "pricing.py", "gone.py") // a file the task does not have
	tests := []struct {
		name, diff string
		passes     *bool
	}{
		{"validated", ce, ptr(true)},
		{"harmless", harmless, ptr(false)},
		{"does not apply", stale, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Gate(context.Background(), tk, "py-discount", tt.name, tt.diff, t.TempDir())
			got := c.Passes()
			if (got == nil) != (tt.passes == nil) || got != nil && *got != *tt.passes {
				t.Errorf("passes %v, want %v: %+v", show(got), show(tt.passes), c)
			}
			if c.ReferenceOnly.Resolved == nil || !*c.ReferenceOnly.Resolved || c.ReferenceOnly.LogPath == nil {
				t.Errorf("reference only: %+v", c.ReferenceOnly)
			}
		})
	}
}

func ptr(b bool) *bool { return &b }

func show(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}
