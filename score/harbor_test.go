package score

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// TestHarborReward: reward files as Harbor's verifier reads them
// (reward.json before reward.txt), each verdict against swetouch's, and
// bad files named by file, line and field.
func TestHarborReward(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name     string
		files    map[string]string // in TRIAL/verifier
		swetouch *bool
		reward   float64
		harbor   *bool
		disagree bool
		none     bool   // no reward file: not listed
		err      string // a *RewardError's text, in part
	}{
		{name: "txt resolved", files: map[string]string{"reward.txt": "1\n"}, swetouch: &yes, reward: 1, harbor: &yes},
		{name: "txt not resolved", files: map[string]string{"reward.txt": " 0 "}, swetouch: &no, reward: 0, harbor: &no},
		{name: "txt float", files: map[string]string{"reward.txt": "1.0"}, swetouch: &yes, reward: 1, harbor: &yes},
		{name: "disagree", files: map[string]string{"reward.txt": "0"}, swetouch: &yes, reward: 0, harbor: &no, disagree: true},
		{name: "partial is not resolved", files: map[string]string{"reward.txt": "0.5"}, swetouch: &no, reward: 0.5, harbor: &no},
		{name: "over 1 is resolved", files: map[string]string{"reward.txt": "2"}, swetouch: &yes, reward: 2, harbor: &yes},
		{name: "swetouch null", files: map[string]string{"reward.txt": "1"}, reward: 1, harbor: &yes},
		{name: "json reward", files: map[string]string{"reward.json": `{"reward": 1, "tests_passed": 7}`}, swetouch: &yes, reward: 1, harbor: &yes},
		{name: "json single other key", files: map[string]string{"reward.json": `{"accuracy": 0}`}, swetouch: &no, reward: 0, harbor: &no},
		{name: "json before txt", files: map[string]string{"reward.json": `{"reward": 0}`, "reward.txt": "1"}, swetouch: &no, reward: 0, harbor: &no},
		{name: "no reward", files: map[string]string{"test-stdout.txt": "ok"}, swetouch: &yes, none: true},
		{name: "empty txt", files: map[string]string{"reward.txt": "\n"}, err: "reward.txt: empty"},
		{name: "txt not a number", files: map[string]string{"reward.txt": "PASSED"}, err: `reward.txt:1: field reward: want a finite number, got "PASSED"`},
		{name: "txt infinite", files: map[string]string{"reward.txt": "inf"}, err: `reward.txt:1: field reward: want a finite number`},
		{name: "json syntax", files: map[string]string{"reward.json": "{\n \"reward\": 1,\n}"}, err: "reward.json:3: want a JSON object of rewards"},
		{name: "json not a number", files: map[string]string{"reward.json": "{\n \"tests\": 3,\n \"reward\": \"1\"\n}"}, err: `reward.json:3: field reward: want a number, got "1"`},
		{name: "json ambiguous", files: map[string]string{"reward.json": `{"a": 1, "b": 0}`}, err: "reward.json:1: field reward: missing, and no single other reward stands for it (keys [a b])"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trial := filepath.Join(t.TempDir(), "py-discount__AbCdEf")
			run := filepath.Join(trial, "agent", "swetouch")
			os.MkdirAll(run, 0o755)
			os.MkdirAll(filepath.Join(trial, "verifier"), 0o755)
			for name, body := range c.files {
				os.WriteFile(filepath.Join(trial, "verifier", name), []byte(body), 0o644)
			}
			hs, err := HarborRewards([]Trial{{Dir: run, Result: result.Run{Resolved: c.swetouch}}})
			if c.err != "" {
				var re *RewardError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want a *RewardError with %q", err, c.err)
				}
				if !strings.HasPrefix(err.Error(), filepath.Join(trial, "verifier")) {
					t.Errorf("%v does not name the file's path", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.none {
				if len(hs) != 0 {
					t.Fatalf("%+v, want no reward", hs)
				}
				return
			}
			if len(hs) != 1 {
				t.Fatalf("%d rewards, want 1", len(hs))
			}
			h := hs[0]
			if h.Reward != c.reward || result.ShowResolved(h.Harbor) != result.ShowResolved(c.harbor) ||
				result.ShowResolved(h.Swetouch) != result.ShowResolved(c.swetouch) || h.Disagrees() != c.disagree || h.Dir != run {
				t.Errorf("%+v (harbor %s), want reward %v harbor %s disagree %v", h, result.ShowResolved(h.Harbor), c.reward, result.ShowResolved(c.harbor), c.disagree)
			}
		})
	}
}

// TestHarborTrialDir: only a run folder at TRIAL/agent/swetouch is
// Harbor's; any other costs no file access.
func TestHarborTrialDir(t *testing.T) {
	for dir, want := range map[string]string{
		"jobs/j/t__x/agent/swetouch":  "jobs/j/t__x",
		"jobs/j/t__x/agent/swetouch/": "jobs/j/t__x",
		"results/a/vanilla/t/run-1":   "",
		"x/swetouch":                  "",
		"agent/other":                 "",
	} {
		if got := HarborTrialDir(dir); got != want {
			t.Errorf("HarborTrialDir(%q) = %q, want %q", dir, got, want)
		}
	}
	hs, err := HarborRewards([]Trial{{Dir: "/nonexistent/results/a/vanilla/t/run-1"}})
	if err != nil || len(hs) != 0 {
		t.Errorf("%v, %v: a trial outside Harbor's layout has no reward", hs, err)
	}
}

// TestWriteHarbor: the counts, and a warning naming each disagreement.
func TestWriteHarbor(t *testing.T) {
	yes, no := true, false
	hs := []HarborReward{
		{Dir: "a/agent/swetouch", Reward: 1, Harbor: &yes, Swetouch: &yes},
		{Dir: "b/agent/swetouch", Reward: 0, Harbor: &no, Swetouch: &yes},
		{Dir: "c/agent/swetouch", Reward: 0.5, Harbor: &no, Swetouch: &no},
		{Dir: "d/agent/swetouch", Reward: 1, Harbor: &yes},
	}
	var b strings.Builder
	WriteHarbor(&b, hs)
	want := "Harbor's reward beside swetouch's verdict: 4 trials, 2 agree, 1 disagree, 1 with Harbor's verdict alone\n" +
		"  warning: Harbor says resolved=false (reward 0), swetouch says resolved=true: b/agent/swetouch\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	j, _ := json.Marshal(hs[3])
	if !strings.Contains(string(j), `"swetouch_resolved":null`) {
		t.Errorf("%s: swetouch's missing verdict is null", j)
	}
}

// TestReadHarborJob: a Harbor job folder as Harbor 0.26.0 writes it
// (testdata/harbor-job, trimmed from a real job of the installed agent):
// the job's and each trial's own result.json, beside their config.json,
// are Harbor's and not read as runs; swetouch's run folder in the
// trial's agent/swetouch is, with Harbor's reward beside it.
func TestReadHarborJob(t *testing.T) {
	job := filepath.Join("testdata", "harbor-job")
	trials, err := Read([]string{job})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, tr := range trials {
		dirs = append(dirs, tr.Dir)
	}
	want := []string{filepath.Join(job, "py-discount__wy8qBZB", "agent", "swetouch")}
	if strings.Join(dirs, " ") != strings.Join(want, " ") {
		t.Fatalf("runs %v, want %v", dirs, want)
	}
	hs, err := HarborRewards(trials)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Reward != 1 || hs[0].Disagrees() || result.ShowResolved(hs[0].Harbor) != "true" || result.ShowResolved(hs[0].Swetouch) != "true" {
		t.Errorf("%+v, want Harbor's reward 1 agreeing with swetouch's resolved", hs)
	}
}
