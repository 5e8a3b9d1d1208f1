package patch

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

// mirror returns the fetched upstream mirror of a repository, or skips.

type devCase struct {
	id, repo, commit, diff, agent string
	fallback                      bool
}

func devCases(t *testing.T) []devCase {
	shared := devdata.Shared(t)
	var matrix struct {
		Gemini map[string]struct {
			Commit   string `json:"content_equivalent_commit"`
			Fallback bool   `json:"needs_context_anchored_fallback"`
		} `json:"gemini_3_pro"`
	}
	b, err := os.ReadFile(filepath.Join(shared, "corpus", "derived", "apply_matrix.json"))
	if err != nil {
		testsupport.Missing(t, testsupport.Corpus, "corpus not found: %v", err)
	}
	json.Unmarshal(b, &matrix)
	var preds map[string]struct {
		Patch string `json:"model_patch"`
	}
	b, _ = os.ReadFile(filepath.Join(shared, "corpus", "patches", "gemini-3-pro_preds_dev.json"))
	json.Unmarshal(b, &preds)
	f, err := os.Open(filepath.Join(shared, "data", "swe-touch-v0.1.2", "swe_bench_verified.jsonl"))
	if err != nil {
		testsupport.Missing(t, testsupport.Corpus, "records not found: %v", err)
	}
	defer f.Close()
	var cases []devCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			ID string `json:"instance_id"`
			CE struct {
				Interventions []struct {
					Patch *struct{ Diff string } `json:"patch"`
				} `json:"interventions"`
			} `json:"counter_edit"`
		}
		json.Unmarshal(sc.Bytes(), &rec)
		m, ok := matrix.Gemini[rec.ID]
		if !ok || len(rec.CE.Interventions) == 0 || rec.CE.Interventions[0].Patch == nil {
			continue
		}
		repo := "astropy/astropy"
		if strings.HasPrefix(rec.ID, "sympy__") {
			repo = "sympy/sympy"
		}
		cases = append(cases, devCase{rec.ID, repo, m.Commit, rec.CE.Interventions[0].Patch.Diff, preds[rec.ID].Patch, m.Fallback})
	}
	return cases
}

// checkout writes the base versions of the files diffs touch into dir.
func checkout(t *testing.T, gitDir, commit, dir string, diffs ...string) {
	for _, d := range diffs {
		fds, err := Parse(d)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if fd.OldPath == "" {
				continue
			}
			out, err := exec.Command("git", "--git-dir", gitDir, "show", commit+":"+fd.OldPath).Output()
			if err != nil {
				t.Fatalf("git show %s:%s: %v", commit, fd.OldPath, err)
			}
			p := filepath.Join(dir, fd.OldPath)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, out, 0o644)
		}
	}
}

func snapshot(dir string) map[string]string {
	m := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

func gitApply(t *testing.T, dir, diff string) bool {
	cmd := exec.Command("git", "apply", "-")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
	return cmd.Run() == nil
}

// TestCorpusCounterEdits: every dev Counter-Edit applies to its base files
// byte-identically to git apply; on base + the agent's final patch it either
// lands or fails with the files untouched; the fallback pairs land with the
// Counter-Edit's lines present and the file still compiling, or are refused
// because the agent rewrote the lines around the change.
func TestCorpusCounterEdits(t *testing.T) {
	testsupport.Slow(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	var identical, landed, failed, fallbackOK, fallbackRefused int
	for _, c := range devCases(t) {
		gitDir := devdata.Mirror(t, c.repo)
		t.Run(c.id, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			checkout(t, gitDir, c.commit, a, c.diff, c.agent)
			checkout(t, gitDir, c.commit, b, c.diff, c.agent)
			fds, err := Parse(c.diff)
			if err != nil {
				t.Fatal(err)
			}
			if !gitApply(t, a, c.diff) {
				t.Fatalf("git apply refuses the Counter-Edit on its base")
			}
			rep, err := Apply(Dir(b), fds)
			if err != nil || !rep.Applied {
				t.Fatalf("Apply on base: %v %+v", err, rep)
			}
			sa, sb := snapshot(a), snapshot(b)
			for k, v := range sa {
				if sb[k] != v {
					t.Fatalf("%s differs from git apply", k)
				}
			}
			if len(sa) != len(sb) {
				t.Fatalf("litter: %d files vs %d", len(sb), len(sa))
			}
			identical++
			// base + the agent's final patch
			if c.agent == "" {
				return
			}
			d := t.TempDir()
			checkout(t, gitDir, c.commit, d, c.diff, c.agent)
			if !gitApply(t, d, c.agent) {
				return
			}
			before := snapshot(d)
			rep, err = Apply(Dir(d), fds)
			if err != nil {
				t.Fatal(err)
			}
			after := snapshot(d)
			if len(after) != len(before) {
				t.Fatalf("litter after applying on the agent's patch")
			}
			if !rep.Applied {
				failed++
				for k, v := range before {
					if after[k] != v {
						t.Fatalf("failed apply changed %s", k)
					}
				}
				if c.fallback {
					// a pair that needs the anchored fallback may be refused
					// only because the agent rewrote the lines around the
					// change: writing the diff's context back would undo it
					refused := false
					for _, h := range rep.Hunks {
						refused = refused || strings.HasPrefix(h.Error, refusal)
					}
					if !refused {
						t.Errorf("fallback pair did not land: %+v", rep.Hunks)
					}
					fallbackRefused++
				}
				return
			}
			landed++
			for _, fd := range fds {
				var reps []HunkReport
				for _, r := range rep.Hunks {
					if r.File == fd.Path() {
						reps = append(reps, r)
					}
				}
				checkLanding(t, fd, reps, before[fd.Path()], after[fd.Path()])
				if strings.HasSuffix(fd.Path(), ".py") {
					if out, err := exec.Command("python3", "-m", "py_compile", filepath.Join(d, fd.Path())).CombinedOutput(); err != nil {
						t.Errorf("%s does not compile: %s", fd.Path(), out)
					}
				}
			}
			if c.fallback {
				fallbackOK++
			}
		})
	}
	t.Logf("byte-identical to git apply on base: %d; on base+agent patch: %d landed, %d failed untouched; fallback pairs landed: %d, refused (the agent rewrote the lines around the change): %d", identical, landed, failed, fallbackOK, fallbackRefused)
}

// checkLanding: in each landed hunk's span of the result, the hunk's added
// lines are present and its removed lines gone; outside the spans, the
// file's earlier lines are all there, unchanged and in order.
func checkLanding(t *testing.T, fd *FileDiff, reps []HunkReport, before, after string) {
	t.Helper()
	res, old := strings.SplitAfter(after, "\n"), strings.SplitAfter(before, "\n")
	trim := func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.TrimRight(ls[i], "\r\n")
		}
		return ls
	}
	res, old = trim(res), trim(old)
	var spans [][2]int
	for i, r := range reps {
		if r.Method == AlreadyApplied || r.Method == Failed {
			continue
		}
		h := fd.Hunks[i]
		span := res[r.Start-1 : r.End]
		kept := map[string]bool{}
		for _, l := range h.Lines {
			if l.Kind != '-' {
				kept[l.Text] = true
			}
		}
		for _, l := range h.Lines {
			switch {
			case l.Kind == '+' && !slices.Contains(span, l.Text):
				t.Errorf("%s hunk %d: added line %q missing from lines %d-%d", fd.Path(), i+1, l.Text, r.Start, r.End)
			case l.Kind == '-' && !kept[l.Text] && slices.Contains(span, l.Text):
				t.Errorf("%s hunk %d: removed line %q still in lines %d-%d", fd.Path(), i+1, l.Text, r.Start, r.End)
			}
		}
		spans = append(spans, [2]int{r.Start - 1, r.End})
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	// the lines between spans must be the old file's, in order, the first
	// run at its start and the last at its end
	at, from := 0, 0
	for i := 0; i <= len(spans); i++ {
		to := len(res)
		if i < len(spans) {
			to = spans[i][0]
		}
		seg := res[from:to]
		switch {
		case i == 0:
			if !slices.Equal(old[:min(len(seg), len(old))], seg) {
				t.Errorf("%s: lines before the first hunk changed", fd.Path())
			}
			at = len(seg)
		case i == len(spans):
			if len(seg) > len(old)-at || !slices.Equal(old[len(old)-len(seg):], seg) {
				t.Errorf("%s: lines after the last hunk changed", fd.Path())
			}
		default:
			k := indexSeq(old[at:], seg)
			if k < 0 {
				t.Errorf("%s: lines between hunks changed", fd.Path())
			} else {
				at += k + len(seg)
			}
		}
		if i < len(spans) {
			from = spans[i][1]
		}
	}
}

func indexSeq(in, seq []string) int {
	for i := 0; i+len(seq) <= len(in); i++ {
		if slices.Equal(in[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}
