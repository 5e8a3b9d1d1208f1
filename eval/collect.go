package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/result"
)

// Interrupted is the reason a trial that ended without its verdict is
// null: its Job was killed, evicted or never started. eval runs or emits
// such a trial again (done), and score counts it apart, as an
// infrastructure error, never as a failure.
const Interrupted = "interrupted"

// ReadJobs reads jobs.jsonl as WriteJobs wrote it; a bad line is an error
// naming the file, the line and the fault.
func ReadJobs(path string) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var jobs []Job
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var j Job
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if j.Results == "" || !filepath.IsLocal(filepath.FromSlash(j.Results)) {
			return nil, fmt.Errorf("%s:%d: results: want a folder under the results root, got %q", path, n, j.Results)
		}
		jobs = append(jobs, j)
	}
	return jobs, sc.Err()
}

// Collect marks every job whose trial has no result.json under results
// (the folder copied off the volume) as null for Interrupted: a Job
// killed mid-trial leaves nothing, and would otherwise be missing from
// the figures rather than counted apart. It returns the jobs it marked;
// `eval --emit` against the same folder emits exactly those again.
func Collect(results string, jobs []Job) ([]Job, error) {
	var marked []Job
	for _, j := range jobs {
		dir := filepath.Join(results, filepath.FromSlash(j.Results))
		if _, err := os.Stat(filepath.Join(dir, result.File)); err == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return marked, err
		}
		r := result.Run{Task: j.Task, Condition: j.Condition, AgentName: j.Agent, Reason: Interrupted}
		if err := r.Write(filepath.Join(dir, result.File)); err != nil {
			return marked, err
		}
		marked = append(marked, j)
	}
	return marked, nil
}
