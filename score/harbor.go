package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/result"
)

// A trial run under Harbor (integrations/harbor) keeps swetouch's run
// folder at TRIAL/agent/swetouch, since the installed agent writes to
// the container's /logs/agent/swetouch, which Harbor collects into the
// trial's agent/ folder; Harbor's verifier writes its reward beside it,
// in TRIAL/verifier. Both verdicts exist for the same workspace, so a
// difference between them is a fault in one of the two verifiers (or in
// the task), which score shows rather than hides.

// harborConfig sits beside Harbor's own result.json, in each trial's
// folder and in the job's: Read skips a result.json with a config.json
// beside it (a walk meets config.json first, so it costs no file access),
// since swetouch's run folders never hold one.
const harborConfig = "config.json"

// Harbor's reward files, as its verifier reads them: reward.json when
// both exist.
const (
	HarborRewardText = "reward.txt"
	HarborRewardJSON = "reward.json"
)

// HarborReward is Harbor's verdict on one trial beside swetouch's own.
type HarborReward struct {
	Dir  string `json:"dir"`  // swetouch's run folder (TRIAL/agent/swetouch)
	File string `json:"file"` // the reward file read
	// Reward is Harbor's reward: reward.txt's number, or reward.json's
	// "reward" (its only value, when it holds one under another name).
	Reward float64 `json:"reward"`
	// Harbor is the reward as a verdict, as the released SWE-Touch
	// harness reads it: resolved when the reward is 1 or more.
	Harbor *bool `json:"harbor_resolved"`
	// Swetouch is result.json's own verdict (nil: none, e.g. an
	// infrastructure error).
	Swetouch *bool `json:"swetouch_resolved"`
}

// Disagrees is true when both verdicts exist and differ.
func (h HarborReward) Disagrees() bool {
	return h.Harbor != nil && h.Swetouch != nil && *h.Harbor != *h.Swetouch
}

// HarborTrialDir is the Harbor trial folder holding swetouch's run
// folder dir, or "" when dir is not laid out as Harbor collects it.
func HarborTrialDir(dir string) string {
	dir = filepath.Clean(dir)
	if filepath.Base(dir) != "swetouch" || filepath.Base(filepath.Dir(dir)) != "agent" {
		return ""
	}
	return filepath.Dir(filepath.Dir(dir))
}

// RewardError is a Harbor reward file that cannot be read as Harbor's
// verifier reads it, naming the file, its line and the field.
type RewardError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *RewardError) Error() string {
	where := e.File
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		where += ": field " + e.Field
	}
	return where + ": " + e.Err.Error()
}

func (e *RewardError) Unwrap() error { return e.Err }

// HarborRewards reads Harbor's reward for every trial laid out as Harbor
// collects it whose verifier left one, in the trials' order. Trials
// elsewhere cost no file access. A reward file Harbor's verifier would
// refuse (empty, not a finite number) is a *RewardError.
func HarborRewards(trials []Trial) ([]HarborReward, error) {
	var out []HarborReward
	for _, t := range trials {
		trial := HarborTrialDir(t.Dir)
		if trial == "" {
			continue
		}
		h, ok, err := readHarborReward(filepath.Join(trial, "verifier"))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		h.Dir, h.Swetouch = t.Dir, t.Result.Resolved
		out = append(out, h)
	}
	return out, nil
}

// readHarborReward reads the verifier folder's reward.json, else its
// reward.txt; ok is false when neither exists.
func readHarborReward(dir string) (h HarborReward, ok bool, err error) {
	for _, name := range []string{HarborRewardJSON, HarborRewardText} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return h, false, err
		}
		if h.Reward, err = parseReward(p, name, b); err != nil {
			return h, false, err
		}
		// as the released SWE-Touch harness reads Harbor's rewards: a
		// reward of 1 or more is resolved (reward, else the only key)
		h.File, h.Harbor = p, verdict(h.Reward >= 1)
		return h, true, nil
	}
	return h, false, nil
}

func verdict(b bool) *bool { return &b }

func parseReward(path, name string, b []byte) (float64, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return 0, &RewardError{File: path, Err: errors.New("empty (Harbor's verifier refuses an empty reward file)")}
	}
	if name == HarborRewardText {
		// Harbor reads the whole file as one float (surrounding white
		// space allowed)
		s := strings.TrimSpace(string(b))
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, &RewardError{File: path, Line: 1, Field: "reward", Err: fmt.Errorf("want a finite number, got %q", clipReward(s))}
		}
		return v, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, &RewardError{File: path, Line: jsonLine(b, err), Err: fmt.Errorf("want a JSON object of rewards: %v", err)}
	}
	key := "reward"
	if _, ok := m[key]; !ok {
		if len(m) != 1 {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return 0, &RewardError{File: path, Line: 1, Field: "reward", Err: fmt.Errorf("missing, and no single other reward stands for it (keys %v)", keys)}
		}
		for k := range m {
			key = k
		}
	}
	var v float64
	if err := json.Unmarshal(m[key], &v); err != nil {
		return 0, &RewardError{File: path, Line: lineOfKey(b, key), Field: key, Err: fmt.Errorf("want a number, got %s", clipReward(string(m[key])))}
	}
	return v, nil
}

// jsonLine is the line of a JSON syntax error (1 when unknown).
func jsonLine(b []byte, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
	}
	return 1
}

// lineOfKey is the line where key's name first appears (1 if not found).
func lineOfKey(b []byte, key string) int {
	q, _ := json.Marshal(key)
	if i := bytes.Index(b, q); i >= 0 {
		return 1 + bytes.Count(b[:i], []byte("\n"))
	}
	return 1
}

func clipReward(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// WriteHarbor prints how Harbor's rewards compare with swetouch's
// verdicts, and a warning line for every trial where they differ.
func WriteHarbor(w io.Writer, hs []HarborReward) {
	if len(hs) == 0 {
		return
	}
	var agree, only int
	var differ []HarborReward
	for _, h := range hs {
		switch {
		case h.Swetouch == nil:
			only++
		case h.Disagrees():
			differ = append(differ, h)
		default:
			agree++
		}
	}
	fmt.Fprintf(w, "Harbor's reward beside swetouch's verdict: %d trials, %d agree, %d disagree", len(hs), agree, len(differ))
	if only > 0 {
		fmt.Fprintf(w, ", %d with Harbor's verdict alone", only)
	}
	fmt.Fprintln(w)
	for _, h := range differ {
		fmt.Fprintf(w, "  warning: Harbor says resolved=%s (reward %s), swetouch says resolved=%s: %s\n",
			result.ShowResolved(h.Harbor), strconv.FormatFloat(h.Reward, 'g', -1, 64), result.ShowResolved(h.Swetouch), h.Dir)
	}
}
