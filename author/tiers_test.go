package author

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

func wholeRead(path string) event.Event {
	return event.Event{Kind: event.Read, Actor: event.Agent, Scopes: []event.Scope{event.FileScope(path)}}
}

func regionsString(doc *Regions) string {
	var parts []string
	for _, r := range doc.Regions {
		parts = append(parts, fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine))
	}
	return fmt.Sprintf("%v %v %s", doc.Evidence["selection_tier"], doc.Evidence["models"], strings.Join(parts, " "))
}

// TestMineTiersPaper: each of the paper's tiers, the intersection across
// models (runs of one model are one model), adjacent lines merged, the
// cap of 8, and the reference's lines last.
func TestMineTiersPaper(t *testing.T) {
	ref := "diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -3,2 +3,3 @@\n a\n+b\n c\n"
	var many []event.Event
	for i := range 10 {
		many = append(many, edit("pkg/a.py", 10*i+1, 10*i+2))
	}
	tests := []struct {
		name string
		runs []Run
		want string
	}{
		{"edits in the core files, intersected across models", []Run{
			{Model: "m1", Events: []event.Event{read("pkg/a.py", 1, 50), edit("pkg/a.py", 10, 14), edit("pkg/b.py", 1, 3)}},
			{Model: "m2", Events: []event.Event{read("pkg/a.py", 1, 9), edit("pkg/a.py", 12, 20)}},
		}, "modified_main_non_noise [m1 m2] pkg/a.py:12-14"},
		{"runs of one model count once: its lines are their union", []Run{
			{Label: "run1", Model: "m1", Events: []event.Event{read("pkg/a.py", 1, 5), edit("pkg/a.py", 10, 11)}},
			{Label: "run2", Model: "m1", Events: []event.Event{edit("pkg/a.py", 12, 12)}},
			{Label: "run3", Model: "m2", Events: []event.Event{read("pkg/a.py", 1, 5), edit("pkg/a.py", 9, 13)}},
		}, "modified_main_non_noise [m1 m2] pkg/a.py:10-12"},
		{"edits in non-noise files when no model read the file", []Run{
			{Model: "m1", Events: []event.Event{edit("pkg/a.py", 5, 7), edit("tests/test_a.py", 1, 9)}},
			{Model: "m2", Events: []event.Event{edit("pkg/a.py", 7, 9), edit("tests/test_a.py", 1, 9)}},
		}, "modified_any_non_noise [m1 m2] pkg/a.py:7-7"},
		{"any edit when only noise was edited", []Run{
			{Model: "m1", Events: []event.Event{edit("pyproject.toml", 1, 5)}},
			{Model: "m2", Events: []event.Event{edit("pyproject.toml", 2, 9)}},
		}, "modified_any [m1 m2] pyproject.toml:2-5"},
		{"edits that do not intersect fall to reads; a whole-file read is every line", []Run{
			{Model: "m1", Events: []event.Event{edit("pkg/a.py", 1, 2), read("pkg/c.py", 30, 40)}},
			{Model: "m2", Events: []event.Event{edit("pkg/b.py", 1, 2), wholeRead("pkg/c.py")}},
		}, "read_any_non_noise [m1 m2] pkg/c.py:30-40"},
		{"files read whole by every model: line 1, as the release has it", []Run{
			{Model: "m1", Events: []event.Event{wholeRead("pkg/c.py"), wholeRead("reproduce.py")}},
			{Model: "m2", Events: []event.Event{wholeRead("pkg/c.py")}},
		}, "read_any_non_noise [m1 m2] pkg/c.py:1-1"},
		{"reads of noise alone", []Run{
			{Model: "m1", Events: []event.Event{read("tests/test_c.py", 3, 8)}},
		}, "read_any [m1] tests/test_c.py:3-8"},
		{"the submission's hunks, not its edit events, are a run's edits", []Run{
			{Model: "m1", FinalDiff: "diff --git a/pkg/a.py b/pkg/a.py\n--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -20,3 +20,4 @@\n a\n+b\n c\n d\n",
				Events: []event.Event{edit("pkg/a.py", 90, 91), read("pkg/a.py", 1, 100)}},
		}, "modified_main_non_noise [m1] pkg/a.py:20-23"},
		{"at most 8 regions, in path and line order", []Run{{Model: "m1", Events: many}},
			"modified_any_non_noise [m1] pkg/a.py:1-2 pkg/a.py:11-12 pkg/a.py:21-22 pkg/a.py:31-32 pkg/a.py:41-42 pkg/a.py:51-52 pkg/a.py:61-62 pkg/a.py:71-72"},
		{"no evidence: the reference repair's added lines", nil, "modified_main_non_noise [gold_patch_fallback] pkg/m.py:4-4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := MineTiers("i", "swe_bench_verified", tt.runs, ref, 8)
			if err != nil {
				t.Fatal(err)
			}
			if got := regionsString(doc); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := MineTiers("i", "swe_bench_verified", nil, "", 8); err == nil {
		t.Error("no evidence and no reference gave regions")
	}
}

func TestNoise(t *testing.T) {
	for p, want := range map[string]bool{
		"astropy/units/core.py": false, "sympy/core/tests/test_basic.py": true, "reproduce_issue.py": true,
		"docs/index.rst": true, "setup.cfg": true, "pyproject.toml": true, "CHANGES.rst": true, "pkg/conftest.py": true,
	} {
		if Noise(p) != want {
			t.Errorf("Noise(%s) = %v", p, !want)
		}
	}
}
