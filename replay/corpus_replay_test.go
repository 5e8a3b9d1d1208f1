package replay_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/devdata"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/replay"
)

// replaySample is the dev-split runs replayed by default (the quick ones,
// two per repository, and one whose submission holds the environment's
// own pyproject.toml pin); SWETOUCH_REPLAY_ALL=1 replays all 45 (about 14
// minutes on 2 cores: sympy's runs import and test sympy).
var replaySample = map[string]bool{
	"astropy__astropy-12907": true, "astropy__astropy-14995": true, "astropy__astropy-14598": true,
	"sympy__sympy-13372": true, "sympy__sympy-13480": true,
}

// TestReplayGeminiRuns re-drives the dev split's Gemini runs (mini-swe-agent
// v1, recorded in SWE-bench containers) on their base checkouts from the
// mirrors and compares the final diff with the submitted patch. Exact means
// equal but for the abbreviation length of index lines (the mirror's git
// picks its own). A mismatch is logged with the files that differ.
func TestReplayGeminiRuns(t *testing.T) {
	testsupport.Slow(t)
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
	divergences := 0
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
				got, err := exec.Command(filepath.Join(bin, "swetouch"), "replay", traj, "--task", taskFile, "--check", "--out", out).CombinedOutput()
				if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
					t.Fatalf("replay: %v\n%s", err, got)
				}
				// every divergence is the environment's: the replay's
				// course is the recording's
				if err != nil && replaySample[id] {
					t.Errorf("replay --check: a divergence changes the workspace's course:\n%s", got)
				}
				if m := summary.FindStringSubmatch(string(got)); m != nil {
					mu.Lock()
					divergences += atoi(m[1])
					mu.Unlock()
				}
				checkAligned(t, traj, filepath.Join(out, "trajectory.jsonl"))
				final, _ := os.ReadFile(filepath.Join(out, "final.diff"))
				want := preds[id].Patch
				mu.Lock()
				ran = append(ran, id)
				mu.Unlock()
				if replay.SameDiff(string(final), want) {
					mu.Lock()
					matched = append(matched, id)
					mu.Unlock()
					return
				}
				files := replay.DiffFiles(string(final), want)
				t.Logf("final diff differs from the submitted patch in %s (mirror lacks %d files)", strings.Join(files, ", "), len(missing))
				if len(files) == 1 && files[0] == "pyproject.toml" {
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
	t.Logf("replayed %d runs: %d reproduce the submitted patch exactly; %d differ only by the environment's pyproject.toml (%s); --check: %d divergences, none changing the course",
		len(ran), len(matched), len(envOnly), strings.Join(envOnly, ", "), divergences)
}

var summary = regexp.MustCompile(`replay: ([0-9]+) divergences: `)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// checkAligned: each replayed action's events carry the step of the
// recorded action it re-drives.
func checkAligned(t *testing.T, recording, replayed string) {
	t.Helper()
	b, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.ImportMiniSWEAgent(b, recording, replay.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := trajectory.ReadFile(replayed)
	if err != nil {
		t.Fatal(err)
	}
	ra, pa := replay.Actions(rec), replay.Actions(got)
	if len(ra) != len(pa) {
		t.Fatalf("%d recorded actions, %d replayed", len(ra), len(pa))
	}
	for i, a := range pa {
		for _, ev := range a.Recorded {
			if ev.RecordedStep == nil || *ev.RecordedStep != ra[i].Step {
				t.Fatalf("action %d (%s): recorded_step %v, want %d", i+1, ev.Command, ev.RecordedStep, ra[i].Step)
			}
		}
	}
}
