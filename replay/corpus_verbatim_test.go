package replay

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/shell"
)

// devRun is one dev-split run of the corpus with its base checkout.
type devRun struct {
	id, file string
	data     []byte
	base     *devdata.GitFiles
}

// devRuns lists the corpus's mini-swe-agent 1.x runs whose base commit is
// known, each with its base read from the dev mirror.
func devRuns(t *testing.T) []devRun {
	d := corpusDir(t)
	var res struct {
		Instances map[string]struct {
			Best  string `json:"best_estimate_base_commit"`
			Equiv string `json:"content_equivalent_commit"`
		} `json:"instances"`
	}
	b, err := os.ReadFile(filepath.Join(d, "derived", "base_resolution.json"))
	if err != nil {
		testsupport.Missing(t, testsupport.Corpus, "base_resolution.json: %v", err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(d, "trajectories", "gemini-3-pro_mini-swe-agent-1.15.0", "*.traj.json"))
	var runs []devRun
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".traj.json")
		inst, ok := res.Instances[id]
		if !ok {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		commit := cmp.Or(inst.Best, inst.Equiv)
		runs = append(runs, devRun{id: id, file: f, data: data, base: &devdata.GitFiles{GitDir: devdata.Mirror(t, devdata.RepoOf(id)), Commit: commit}})
	}
	return runs
}

// shownBlocks finds where an observation prints a file verbatim: maximal
// runs of at least three output lines (two of them with some text) that
// match consecutive lines of the file at one place only. It is the
// verbatim-block oracle: it needs the file, which the classifier may not
// have.
func shownBlocks(out string, file []string) [][2]int {
	at := map[string][]int{}
	for j, l := range file {
		at[l] = append(at[l], j)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var blocks [][2]int
	for i := 0; i < len(lines); i++ {
		for _, j := range at[lines[i]] {
			if i > 0 && j > 0 && lines[i-1] == file[j-1] {
				continue // not the start of a run
			}
			n := 0
			for i+n < len(lines) && j+n < len(file) && lines[i+n] == file[j+n] {
				n++
			}
			if n < 3 || textLines(lines[i:i+n]) < 2 || !uniqueRun(lines[i:i+n], file, at) {
				continue
			}
			blocks = append(blocks, [2]int{j + 1, j + n})
		}
	}
	return blocks
}

func textLines(ls []string) int {
	n := 0
	for _, l := range ls {
		if len(strings.TrimSpace(l)) >= 4 {
			n++
		}
	}
	return n
}

func uniqueRun(run, file []string, at map[string][]int) bool {
	found := 0
	for _, j := range at[run[0]] {
		if j+len(run) <= len(file) && equalLines(file[j:j+len(run)], run) {
			found++
		}
	}
	return found == 1
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCorpusVerbatimBlocks: where an observation shows a block of a file
// verbatim (sed -n, head, tail, awk, cat, a python print of a slice…), the
// step's read scope covers the lines shown. Reads of a file after the run
// changed it are left out (the base no longer says what was shown), and
// so is everything after an edit whose target is unknown, and test runs
// (their tracebacks show code in passing; only the lines they name count). Scopes that are
// whole-file although the block is known are counted, from the transcript
// alone and with the base checkout given to the classifier.
func TestCorpusVerbatimBlocks(t *testing.T) {
	type tally struct{ blocks, lines, missed, wholeReads, knownReads int }
	var plain, withBase tally
	var wholeCmds []string
	for _, r := range devRuns(t) {
		id, data, f, src := r.id, r.data, r.file, r.base
		for _, mode := range []struct {
			tally *tally
			opts  ImportOptions
		}{{&plain, ImportOptions{}}, {&withBase, ImportOptions{Shell: []shell.Option{shell.WithBase(src)}}}} {
			tr, err := ImportMiniSWEAgent(data, f, mode.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkVerbatim(t, id, tr.Events, src, mode.tally == &withBase, func(kind string, n int, cmd string) {
				switch kind {
				case "block":
					mode.tally.blocks++
					mode.tally.lines += n
				case "missed":
					mode.tally.missed += n
				case "known":
					mode.tally.knownReads++
				case "whole":
					mode.tally.wholeReads++
					if mode.tally == &withBase {
						wholeCmds = append(wholeCmds, fmt.Sprintf("%s: %s", id, cmd))
					}
				}
			})
		}
	}
	for _, c := range wholeCmds {
		t.Logf("whole-file although the block is known: %s", c)
	}
	for _, x := range []struct {
		name string
		t    tally
	}{{"transcript alone", plain}, {"with the base checkout", withBase}} {
		t.Logf("%s: %d verbatim blocks (%d lines) in %d reads, %d lines not covered; %d reads scoped whole-file although the block is known",
			x.name, x.t.blocks, x.t.lines, x.t.knownReads, x.t.missed, x.t.wholeReads)
	}
}

func checkVerbatim(t *testing.T, id string, evs []event.Event, src *devdata.GitFiles, strict bool, count func(kind string, n int, cmd string)) {
	t.Helper()
	edited := map[string]bool{}
	opaque := false
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].Step != nil && evs[i].Step != nil && *evs[j].Step == *evs[i].Step && evs[j].Action == evs[i].Action {
			j++
		}
		group := evs[i:j]
		i = j
		if opaque {
			return
		}
		reads := map[string][]event.Scope{}
		var order []string
		testRun := false
		for _, ev := range group {
			testRun = testRun || ev.Kind == event.Test
		}
		for _, ev := range group {
			if testRun {
				break // a test run's tracebacks show code in passing, not as a read
			}
			if ev.Kind != event.Read {
				continue
			}
			for _, sc := range ev.Scopes {
				if sc.Path != "" && !edited[sc.Path] {
					if _, ok := reads[sc.Path]; !ok {
						order = append(order, sc.Path)
					}
					reads[sc.Path] = append(reads[sc.Path], sc)
				}
			}
		}
		if out := group[0].Output; out != nil && group[0].Note != "submission" {
			texts := []string{out.Text}
			if out.Elided {
				texts = []string{out.Head, out.Tail}
			}
			for _, p := range order {
				b, err := src.ReadFile(p)
				if err != nil {
					continue
				}
				file := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				var blocks [][2]int
				for _, tx := range texts {
					blocks = append(blocks, shownBlocks(tx, file)...)
				}
				if len(blocks) == 0 {
					continue
				}
				count("known", 1, "")
				whole := true
				for _, sc := range reads[p] {
					whole = whole && sc.Whole()
				}
				entire := len(blocks) == 1 && blocks[0] == [2]int{1, len(file)}
				if whole && !entire {
					count("whole", 1, group[0].Command)
				}
				for _, bl := range blocks {
					count("block", bl[1]-bl[0]+1, "")
					missed := 0
					for n := bl[0]; n <= bl[1]; n++ {
						if !covered(reads[p], p, n) {
							missed++
						}
					}
					if missed > 0 {
						count("missed", missed, "")
						t.Errorf("%s step %d: %s lines %d-%d shown verbatim, %d not in read scopes %v\ncmd: %s", id, *group[0].Step, p, bl[0], bl[1], missed, reads[p], group[0].Command)
					}
				}
			}
		}
		for _, ev := range group {
			if ev.Kind != event.Edit {
				continue
			}
			for _, sc := range ev.Scopes {
				if sc.Path == "" {
					opaque = true
				}
				edited[sc.Path] = true
			}
			if len(ev.Scopes) == 0 {
				opaque = true
			}
		}
	}
}
