package task

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/result"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// CodeInImage reports whether the task's starting code lives in its
// container image (Harbor's [environment] docker_image, at Workdir)
// rather than in a folder of the task: a SWE-bench task. Such a task
// loads; running it needs its image.
func (t *Task) CodeInImage() bool { return t.Repo == "" && t.Image != "" }

// Listed reports whether the task lists the tests its fix must make pass
// and keep passing (tests/config.json's FAIL_TO_PASS, PASS_TO_PASS).
func (t *Task) Listed() bool { return len(t.FailToPass)+len(t.PassToPass) > 0 }

// readListed reads FAIL_TO_PASS and PASS_TO_PASS from the task's
// tests/config.json when it has one (each a JSON list, or a string holding
// one, as SWE-bench's files do); the file's other fields are test.sh's.
func readListed(t *Task) error {
	path := filepath.Join(t.Tests, "config.json")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return jsonerr.Locate(path, b, 0, "", err)
	}
	for _, f := range []struct {
		key string
		to  *[]string
	}{{"FAIL_TO_PASS", &t.FailToPass}, {"PASS_TO_PASS", &t.PassToPass}} {
		raw, ok := doc[f.key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw = json.RawMessage(s)
		}
		if err := json.Unmarshal(raw, f.to); err != nil {
			return fmt.Errorf("%s: field %s: want a list of test ids: %v", path, f.key, err)
		}
	}
	return nil
}

// ListedResults are what came of the tests a task lists, by SWE-bench's
// rule (result.Listed in result.json).
type ListedResults = result.Listed

// ListedOf judges the per-test results against t's lists; nil when the
// task lists none or there are no results.
func ListedOf(t *Task, results map[string]string) *ListedResults {
	if !t.Listed() || results == nil {
		return nil
	}
	failed := func(ids []string) []string {
		out := []string{}
		for _, id := range ids {
			if r, ok := results[id]; !ok || r == "fail" || r == "error" {
				out = append(out, id)
			}
		}
		return out
	}
	return &ListedResults{FailToPass: len(t.FailToPass), PassToPass: len(t.PassToPass),
		FailToPassFailed: failed(t.FailToPass), PassToPassFailed: failed(t.PassToPass)}
}

// failedAny says whether any listed test failed, naming the first.
func failedAny(l *ListedResults) (string, bool) {
	for _, ids := range [][]string{l.FailToPassFailed, l.PassToPassFailed} {
		if len(ids) > 0 {
			return ids[0], true
		}
	}
	return "", false
}

// judgeListed records what came of the task's listed tests and holds a
// green exit to them: test.sh's exit 0 with a listed test failed is not
// resolved.
func judgeListed(t *Task, v *Verdict) {
	v.Listed = ListedOf(t, v.Tests)
	if v.Listed == nil || v.Resolved == nil || !*v.Resolved {
		return
	}
	if id, bad := failedAny(v.Listed); bad {
		v.Resolved, v.Reason = ptr(false), fmt.Sprintf("test.sh exit 0, but listed test %s failed or reported nothing", id)
	}
}

// notHere is the reason of a verdict whose test.sh could not find a
// program in a task whose code lives in its image: the tests' own last
// words, since no starting code here can show whether the agent or the
// machine is the cause.
func notHere(v Verdict) string {
	last := strings.TrimSpace(v.Output)
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	return fmt.Sprintf("test.sh exit %d: a program the tests need is not here (%s); the task's code lives in its image: no verdict", v.Exit, tail(last, 300))
}
