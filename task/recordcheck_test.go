package task

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckRecordsFindsEveryFault: a file with faults on three lines (a
// broken hunk header, a path leaving the workspace, a duplicate) and a
// line that is not JSON reports each of them, not the first, with the
// line and field; ReadRecords still stops at the first.
func TestCheckRecordsFindsEveryFault(t *testing.T) {
	good := func(id, diff string) string {
		return `{"schema_version": "1.0.0", "benchmark": "local", "split": "test", "instance_id": "` + id + `", "task_critical_regions": [{"path": "f.py", "start_line": 1, "end_line": 3}], "region_evidence": {}, "controls": {}, "counter_edit": {"mode": "patch", "max_interventions": 1, "message_prompt_id": "p", "validation": {}, "interventions": [{"order": 1, "delivery": "patch_and_message", "trigger": {"event": "read_or_edit", "max_triggers": 1, "regions": [{"path": "f.py", "start_line": 1, "end_line": 3}]}, "patch": {"id": "c", "diff": ` + jsonString(diff) + `, "target_regions": [], "mistaken_belief": "", "expected_failure": ""}}]}}`
	}
	diff := "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	broken := strings.Replace(diff, "@@ -1,3", "@! -1,3", 1)
	lines := []string{
		good("one", diff),
		good("two", broken),
		strings.Replace(good("three", diff), `"regions": [{"path": "f.py"`, `"regions": [{"path": "../f.py"`, 1),
		`{"schema_version": `,
		good("one", diff),
	}
	file := strings.Join(lines, "\n") + "\n"
	n, faults := CheckRecords(strings.NewReader(file), "r.jsonl")
	if n != 5 {
		t.Errorf("%d records, want 5", n)
	}
	want := []string{
		`r.jsonl:2: field counter_edit.interventions[0].patch.diff: line 4: "@! -1,3 +1,3 @@" is not part of a diff`,
		`r.jsonl:3: field counter_edit.interventions[0].trigger.regions[0]: path "../f.py" leaves the workspace`,
		`r.jsonl:4: invalid JSON`,
		`r.jsonl:5: field instance_id: duplicate of line 1 (one)`,
	}
	if len(faults) != len(want) {
		t.Fatalf("%d faults, want %d: %v", len(faults), len(want), faults)
	}
	for i, w := range want {
		if !strings.HasPrefix(faults[i].Error(), w) {
			t.Errorf("fault %d: %v\nwant a start %s", i, faults[i], w)
		}
	}
	if _, err := ReadRecords(strings.NewReader(file), "r.jsonl"); err == nil || !strings.HasPrefix(err.Error(), want[0]) {
		t.Errorf("ReadRecords: %v", err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
