package replay

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/shell"
)

// TestCorpusEditRecall: over a run, the files of the edit events include the
// files the submission changes, for at least 95% of them from the
// transcript alone.
func TestCorpusEditRecall(t *testing.T) {
	var all, want, found int
	for _, f := range corpusFiles(t) {
		tr := importFile(t, f)
		edited := map[string]bool{}
		var submitted string
		var commands strings.Builder
		for _, ev := range tr.Events {
			commands.WriteString(ev.Command)
			if ev.Kind == event.Edit {
				for _, s := range ev.Scopes {
					edited[s.Path] = true
				}
			}
			if ev.Kind == event.Session && ev.Note == "submitted" {
				submitted = ev.Diff
			}
		}
		for _, p := range shell.DiffTargets(submitted, 1) {
			all++
			if !strings.Contains(commands.String(), filepath.Base(p)) {
				// no command names the file: the environment changed it
				// (astropy's pinned pyproject.toml), nothing in the
				// transcript can
				t.Logf("%s: %s is changed but no command names it", filepath.Base(f), p)
				continue
			}
			want++
			if edited[p] {
				found++
			} else {
				t.Logf("%s: submission changes %s, no edit event names it", filepath.Base(f), p)
			}
		}
	}
	if want == 0 {
		testsupport.Missing(t, testsupport.Corpus, "no submissions in the corpus")
	}
	recall := float64(found) / float64(want)
	t.Logf("submitted files: %d; named by some command: %d; named by edit events: %d (%.1f%%; %.1f%% of all)", all, want, found, 100*recall, 100*float64(found)/float64(all))
	if recall < 0.95 {
		t.Errorf("edit recall %.1f%% < 95%%", 100*recall)
	}
}

// TestCorpusNonExecutedTurns: a v1 assistant turn without exactly one bash
// block, or whose reply has no <returncode>, yields no command event; the
// steps of the events are the indexes of the turns that ran.
func TestCorpusNonExecutedTurns(t *testing.T) {
	checked := 0
	for _, f := range corpusFiles(t) {
		data, _ := os.ReadFile(f)
		var raw msaFile
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		ran := map[int]bool{}
		step := -1
		for i, m := range raw.Messages {
			if m.Role != "assistant" {
				continue
			}
			step++
			if raw.Format != "mini-swe-agent-1" {
				ran[step] = len(m.ToolCalls) > 0
				continue
			}
			blocks := bashBlock.FindAllString(m.text(), -1)
			next := ""
			if i+1 < len(raw.Messages) {
				next = raw.Messages[i+1].text()
			}
			ran[step] = len(blocks) == 1 && (strings.Contains(next, "<returncode>") || strings.Contains(m.text(), SubmitMarker))
		}
		for _, ev := range importFile(t, f).Events {
			checked++
			if ev.Step == nil || !ran[*ev.Step] {
				t.Errorf("%s: event %d at step %v, which did not execute", filepath.Base(f), ev.Seq, ev.Step)
			}
		}
	}
	t.Logf("events checked: %d", checked)
}
