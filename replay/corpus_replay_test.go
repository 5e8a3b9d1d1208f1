package replay_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/internal/devdata"
	"github.com/swetouch/swetouch/internal/testbin"
)

// replaySample is the dev-split runs replayed by default (the quick ones,
// two per repository, and one whose submission holds the environment's
// own pyproject.toml pin); SWETOUCH_REPLAY_ALL=1 replays all 45 (about 14
// minutes on 2 cores: sympy's runs import and test sympy).
var replaySample = map[string]bool{
	"astropy__astropy-12907": true, "astropy__astropy-14995": true, "astropy__astropy-14598": true,
	"sympy__sympy-13372": true, "sympy__sympy-13480": true,
}

// environmentOnly reports whether the only difference is the submitted
// pyproject.toml: astropy's SWE-bench images pin setuptools in it before
// the agent starts, so it is in the submission but in no agent command.
func environmentOnly(files []string) bool {
	return len(files) == 1 && files[0] == "a/pyproject.toml b/pyproject.toml (submitted)"
}

// TestReplayGeminiRuns re-drives the dev split's Gemini runs (mini-swe-agent
// v1, recorded in SWE-bench containers) on their base checkouts from the
// mirrors and compares the final diff with the submitted patch. Exact means
// equal but for the abbreviation length of index lines (the mirror's git
// picks its own). A mismatch is logged with the files that differ.
func TestReplayGeminiRuns(t *testing.T) {
	shared := devdata.Shared(t)
	corpus := filepath.Join(shared, "corpus")
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	var resolution struct {
		Instances map[string]struct {
			Best string `json:"best_estimate_base_commit"`
		} `json:"instances"`
	}
	var validation struct {
		Instances map[string]struct {
			Exact    bool   `json:"exact"`
			Official string `json:"official_base_commit"`
		} `json:"instances"`
	}
	var preds map[string]struct {
		Patch string `json:"model_patch"`
	}
	for f, v := range map[string]any{"derived/base_resolution.json": &resolution, "derived/base_validation.json": &validation, "patches/gemini-3-pro_preds_dev.json": &preds} {
		b, err := os.ReadFile(filepath.Join(corpus, f))
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	trajs, _ := filepath.Glob(filepath.Join(corpus, "trajectories", "gemini-3-pro_mini-swe-agent-1.15.0", "*.traj.json"))
	all := os.Getenv("SWETOUCH_REPLAY_ALL") != ""
	var mu sync.Mutex
	var matched, ran, envOnly []string
	t.Run("runs", func(t *testing.T) {
		for _, traj := range trajs {
			id := strings.TrimSuffix(filepath.Base(traj), ".traj.json")
			if !all && !replaySample[id] {
				continue
			}
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				base := resolution.Instances[id].Best
				if v := validation.Instances[id]; v.Exact && v.Official != "" {
					base = v.Official
				}
				mirror := devdata.Mirror(t, devdata.RepoOf(id))
				dir := t.TempDir()
				missing, err := devdata.Checkout(mirror, base, filepath.Join(dir, "repo"))
				if err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Join(dir, "tests"), 0o755)
				os.WriteFile(filepath.Join(dir, "tests", "test.sh"), []byte("true\n"), 0o644)
				taskFile := filepath.Join(dir, "task.json")
				b, _ := json.Marshal(map[string]any{"name": id, "instruction": "replay", "repo": "repo", "tests": "tests", "timeout_sec": 60})
				os.WriteFile(taskFile, b, 0o644)
				out := filepath.Join(dir, "out")
				got, err := exec.Command(filepath.Join(bin, "swetouch"), "replay", traj, "--task", taskFile, "--out", out).CombinedOutput()
				if err != nil {
					t.Fatalf("replay: %v\n%s", err, got)
				}
				final, _ := os.ReadFile(filepath.Join(out, "final.diff"))
				want := preds[id].Patch
				mu.Lock()
				ran = append(ran, id)
				mu.Unlock()
				if sameDiff(string(final), want) {
					mu.Lock()
					matched = append(matched, id)
					mu.Unlock()
					return
				}
				files := diffFiles(string(final), want)
				t.Logf("final diff differs from the submitted patch in %s (mirror lacks %d files)", strings.Join(files, ", "), len(missing))
				if environmentOnly(files) {
					mu.Lock()
					envOnly = append(envOnly, id)
					mu.Unlock()
				} else if replaySample[id] {
					t.Errorf("%s: a sample run must replay to its submitted patch, but for the environment's pyproject.toml", id)
				}
			})
		}
	})
	sort.Strings(matched)
	sort.Strings(envOnly)
	t.Logf("replayed %d runs: %d reproduce the submitted patch exactly; %d differ only by the environment's pyproject.toml (%s)",
		len(ran), len(matched), len(envOnly), strings.Join(envOnly, ", "))
}

var indexLine = regexp.MustCompile(`(?m)^index [0-9a-f]+\.\.[0-9a-f]+`)

func sameDiff(a, b string) bool {
	return indexLine.ReplaceAllString(a, "index") == indexLine.ReplaceAllString(b, "index")
}

// diffFiles names the files whose sections differ between two diffs.
func diffFiles(a, b string) []string {
	sections := func(d string) map[string]string {
		m := map[string]string{}
		for _, s := range strings.Split(d, "diff --git ")[1:] {
			name, _, _ := strings.Cut(s, "\n")
			m[name] = indexLine.ReplaceAllString(s, "index")
		}
		return m
	}
	sa, sb := sections(a), sections(b)
	var out []string
	for n, s := range sa {
		if sb[n] != s {
			out = append(out, n+" (replay)")
		}
	}
	for n, s := range sb {
		if sa[n] != s {
			out = append(out, n+" (submitted)")
		}
	}
	sort.Strings(out)
	return out
}
