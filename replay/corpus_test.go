package replay

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
)

// corpusDir is the shared corpus of real runs, read in place.
func corpusDir(t testing.TB) string {
	d := filepath.Join("..", "..", "shared", "corpus")
	if env := os.Getenv("SWETOUCH_CORPUS"); env != "" {
		d = env
	}
	if _, err := os.Stat(d); err != nil {
		testsupport.Missing(t, testsupport.Corpus, "corpus not found at %s (set SWETOUCH_CORPUS): %v", d, err)
	}
	return d
}

func corpusFiles(t testing.TB) []string {
	d := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(d, "trajectories", "*", "*.traj.json"))
	if len(files) == 0 {
		testsupport.Missing(t, testsupport.Corpus, "no trajectories in the corpus at %s", d)
	}
	return files
}

func importFile(t testing.TB, f string) *trajectory.Trajectory {
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ImportMiniSWEAgent(data, f, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

var (
	oracleNumbered = regexp.MustCompile(`(?m)^\s*(\d+)\t`)
	oracleGrepN    = regexp.MustCompile(`(?m)^(\d+)[:-]`)
	oraclePathLine = regexp.MustCompile(`(?m)^([\w./-]+\.[A-Za-z]\w*):(\d+):`)
	oracleFile     = regexp.MustCompile(`(?:^|\s)(?:/testbed/)?((?:[\w.-]+/)*[\w-]+\.[A-Za-z]\w*)(?:\s|$|;|\|)`)
)

// printedLines is an independent oracle: the (file, line) pairs an
// observation prints with line numbers.
func printedLines(cmd, out string) map[string][]int {
	res := map[string][]int{}
	files := oracleFile.FindAllStringSubmatch(cmd, -1)
	single := ""
	if len(files) == 1 {
		single = files[0][1]
	}
	numbered := regexp.MustCompile(`\bnl\b|\bcat\s+-n\b`).MatchString(cmd)
	// grep -n after a selection numbers the selection's lines, not the
	// file's: only a grep -n reading the file itself is an oracle
	grepN := regexp.MustCompile(`\bgrep\b[^|]*\s-\w*n`).MatchString(cmd) && !regexp.MustCompile(`\|\s*grep\b`).MatchString(cmd)
	for _, m := range oraclePathLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		res[strings.TrimPrefix(strings.TrimPrefix(m[1], "./"), "/testbed/")] = append(res[m[1]], n)
	}
	if single == "" {
		return res
	}
	switch {
	case numbered:
		for _, m := range oracleNumbered.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			res[single] = append(res[single], n)
		}
	case grepN && len(res) == 0:
		for _, m := range oracleGrepN.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			res[single] = append(res[single], n)
		}
	}
	return res
}

// TestCorpusReadRecall: for every executed step whose observation prints
// line numbers, the step's read scopes on that file contain every printed
// line. Precision (lines claimed that were not shown) is reported.
func TestCorpusReadRecall(t *testing.T) {
	var printed, missed, claimed int
	for _, f := range corpusFiles(t) {
		tr := importFile(t, f)
		bySeqStep := map[int][]event.Event{}
		for _, ev := range tr.Events {
			if ev.Step != nil {
				bySeqStep[*ev.Step] = append(bySeqStep[*ev.Step], ev)
			}
		}
		for step, evs := range bySeqStep {
			cmd := evs[0].Command
			if evs[0].Output == nil || evs[0].Note == "submission" {
				continue
			}
			out := evs[0].Output.Text
			want := printedLines(cmd, out)
			var reads []event.Scope
			for _, ev := range evs {
				if ev.Kind == event.Read {
					reads = append(reads, ev.Scopes...)
				}
			}
			for file, nums := range want {
				shown := map[int]bool{}
				for _, n := range nums {
					printed++
					shown[n] = true
					if !covered(reads, file, n) {
						missed++
						t.Errorf("%s step %d: %s:%d printed but not in read scopes %v\ncmd: %s", filepath.Base(f), step, file, n, reads, cmd)
					}
				}
				for _, s := range reads {
					if s.Path == file && !s.Whole() {
						for n := s.Start; n <= s.End; n++ {
							if !shown[n] {
								claimed++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("numbered lines printed: %d, missed: %d (recall %.2f%%), lines claimed but not shown: %d", printed, missed, 100*float64(printed-missed)/float64(max(printed, 1)), claimed)
}

func covered(scopes []event.Scope, file string, n int) bool {
	for _, s := range scopes {
		if s.Path == file && s.Contains(n) {
			return true
		}
	}
	return false
}

// grepRecursive is a recursive grep without numbers or a file list: its
// output's path:text lines show parts of those files.
var grepRecursive = regexp.MustCompile(`\bgrep\s+(-[A-Za-z]*r[A-Za-z]*|-R|--recursive)\b`)

// TestCorpusGrepNamesRead: every file a `grep -r` without -n shows (an
// output line starting "path:", by an oracle of its own) is reported read
// at that step.
func TestCorpusGrepNamesRead(t *testing.T) {
	shownRe := regexp.MustCompile(`(?m)^(?:/testbed/|\./)?((?:[\w.-]+/)*[\w-]+\.[A-Za-z]\w*):`)
	var shown, read int
	for _, f := range corpusFiles(t) {
		tr := importFile(t, f)
		byStep := map[int][]event.Event{}
		for _, ev := range tr.Events {
			if ev.Step != nil {
				byStep[*ev.Step] = append(byStep[*ev.Step], ev)
			}
		}
		for step, evs := range byStep {
			cmd := evs[0].Command
			if evs[0].Output == nil || !grepRecursive.MatchString(cmd) || regexp.MustCompile(`\s-[A-Za-z]*[nlLc]`).MatchString(cmd) {
				continue
			}
			files := map[string]bool{}
			for _, m := range shownRe.FindAllStringSubmatch(evs[0].Output.Text, -1) {
				if !regexp.MustCompile(`^\d+$`).MatchString(m[1]) {
					files[m[1]] = true
				}
			}
			for file := range files {
				shown++
				found := false
				for _, ev := range evs {
					for _, s := range ev.Scopes {
						found = found || ev.Kind == event.Read && s.Path == file
					}
				}
				if found {
					read++
				} else {
					t.Errorf("%s step %d: %s shown by %q but not read", filepath.Base(f), step, file, cmd)
				}
			}
		}
	}
	t.Logf("files a grep -r without -n showed: %d, reported read: %d", shown, read)
}
