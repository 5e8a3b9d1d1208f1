package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

func TestReleasedRecordsLoad(t *testing.T) {
	dir := filepath.Join(devdata.Shared(t), "data", "swe-touch-v0.1.2")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		testsupport.Missing(t, testsupport.Corpus, "released records not found under %s", dir)
	}
	total := 0
	for _, f := range files {
		recs, err := LoadRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		total += len(recs)
	}
	if total != 250 {
		t.Errorf("loaded %d records, want 250", total)
	}
}

func TestMalformedRecordNamesWhere(t *testing.T) {
	good := `{"schema_version":"1.0.0","benchmark":"swe_bench_verified","split":"test","instance_id":"a__b-1","task_critical_regions":[{"path":"a.py","start_line":1,"end_line":2}],"region_evidence":{},"controls":{},"counter_edit":{"mode":"text_only","max_interventions":1,"message_prompt_id":"counter_edit_user_simulator","validation":{},"interventions":[{"order":1,"delivery":"message_only","trigger":{"event":"read_or_edit","max_triggers":1,"regions":[{"path":"a.py","start_line":1,"end_line":2}]}}]}}`
	tests := []struct{ name, line, want string }{
		{"type", strings.Replace(good, `"start_line":1,"end_line":2}],"region`, `"start_line":"1","end_line":2}],"region`, 1), "r.jsonl:2: field task_critical_regions.start_line"},
		{"reversed", strings.Replace(good, `"start_line":1,"end_line":2}],"region`, `"start_line":5,"end_line":2}],"region`, 1), "r.jsonl:2: field task_critical_regions[0]: end_line 2 < start_line 5"},
		{"event", strings.Replace(good, `"read_or_edit"`, `"touch"`, 1), "field counter_edit.interventions[0].trigger.event"},
		{"unknown", strings.Replace(good, `"split"`, `"splat"`, 1), "field splat: unknown field"},
		{"syntax", good[:50], "r.jsonl:2: invalid JSON"},
		{"count", strings.Replace(good, `"max_interventions":1`, `"max_interventions":3`, 1), "field counter_edit.interventions: 1 interventions, max_interventions is 3"},
		{"escaping diff", strings.Replace(good, `"delivery":"message_only"`, `"delivery":"patch_and_message","patch":{"id":"p","diff":"diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n","target_regions":[],"mistaken_belief":"","expected_failure":""}`, 1),
			`r.jsonl:2: field counter_edit.interventions[0].patch.diff: line 1: path "../x" leaves the workspace`},
		{"malformed diff", strings.Replace(good, `"delivery":"message_only"`, `"delivery":"patch_and_message","patch":{"id":"p","diff":"diff --git a/x b/x\n@@ -1 +1\n-a\n","target_regions":[],"mistaken_belief":"","expected_failure":""}`, 1),
			`field counter_edit.interventions[0].patch.diff: line 2: hunk header without closing @@`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRecords(strings.NewReader(good+"\n"+tt.line+"\n"), "r.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ReadRecords(strings.NewReader(good+"\n"), "r.jsonl"); err != nil {
		t.Fatal(err)
	}
	_ = os.Stdout
}

func TestSameInstance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"swebenchpro_instance_x__y-1", "instance_x__y-1", true},
		{"django__django-1", "django__django-1__run2", true},
		{"django__django-1", "django__django-12", false},
		{"deepswe_foo", "foo", true},
	} {
		if got := SameInstance(c.a, c.b); got != c.want {
			t.Errorf("SameInstance(%q,%q)=%v", c.a, c.b, got)
		}
	}
}
