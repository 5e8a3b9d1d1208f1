package task

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Task is a runnable task: a starting repository, an instruction, and a
// verifier that says whether a workspace resolves it.
type Task struct {
	Name        string
	Dir         string // where the task was loaded from
	Instruction string
	// Repo is the directory whose copy becomes the workspace.
	Repo string
	// Tests holds test.sh and what it needs; it is copied beside (never
	// into) the workspace when the verifier runs.
	Tests string
	// Solution is the reference solution script, "" if none.
	Solution string
	Timeout  time.Duration
	// Runner is the test runner test.sh uses, for the verifier's
	// canaries (RunnerUnittest, RunnerPytest, RunnerGo; "none" for no
	// canaries): task.toml's [verifier] runner, task.json's "runner".
	// Empty: read from test.sh.
	Runner string
	// Image and Workdir are Harbor's [environment] docker_image and
	// workdir: with no Repo the starting code is the image's, at Workdir
	// (CodeInImage).
	Image, Workdir string
	// FailToPass and PassToPass are the tests the task lists
	// (tests/config.json, SWE-bench's): the verifier reports which failed.
	FailToPass, PassToPass []string
	// AgentTimeout is how long the agent may run (Harbor's
	// agent.timeout_sec, task.json's agent_timeout_sec); 0: the task
	// does not say.
	AgentTimeout time.Duration
}

// Load reads a task from a Harbor task directory (instruction.md,
// task.toml, tests/test.sh, solution/solve.sh; the starting code in repo/
// or environment/repo/, or, with neither, in the image task.toml names at
// its workdir: CodeInImage) or from a local task file (task.json: {"name", "instruction",
// "repo", "tests", "solution", "timeout_sec"}, paths relative to the file).
func Load(path string) (*Task, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return loadFile(path)
	}
	if _, err := os.Stat(filepath.Join(path, "task.json")); err == nil {
		return loadFile(filepath.Join(path, "task.json"))
	}
	return loadHarbor(path)
}

func loadHarbor(dir string) (*Task, error) {
	t := &Task{Name: filepath.Base(dir), Dir: dir, Timeout: 10 * time.Minute}
	b, err := os.ReadFile(filepath.Join(dir, "instruction.md"))
	if err != nil {
		return nil, fmt.Errorf("%s: a Harbor task needs instruction.md: %w", dir, err)
	}
	t.Instruction = string(b)
	if kv, err := readTOML(filepath.Join(dir, "task.toml")); err == nil {
		if v, ok := kv["verifier.timeout_sec"]; ok {
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: field verifier.timeout_sec: %v", filepath.Join(dir, "task.toml"), err)
			}
			t.Timeout = time.Duration(secs * float64(time.Second))
		}
		if v, ok := kv["agent.timeout_sec"]; ok {
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil || secs < 0 {
				return nil, fmt.Errorf("%s: field agent.timeout_sec: want seconds, got %q", filepath.Join(dir, "task.toml"), v)
			}
			t.AgentTimeout = time.Duration(secs * float64(time.Second))
		}
		if v, ok := kv["metadata.name"]; ok {
			t.Name = v
		}
		if v, ok := kv["task.name"]; ok {
			t.Name = v
		}
		if t.Image, t.Workdir, err = environmentOf(kv, filepath.Join(dir, "task.toml")); err != nil {
			return nil, err
		}
		if v, ok := kv["verifier.runner"]; ok {
			if err := checkRunner(v); err != nil {
				return nil, fmt.Errorf("%s: field verifier.runner: %v", filepath.Join(dir, "task.toml"), err)
			}
			t.Runner = v
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	for _, r := range []string{"repo", filepath.Join("environment", "repo")} {
		if st, err := os.Stat(filepath.Join(dir, r)); err == nil && st.IsDir() {
			t.Repo = filepath.Join(dir, r)
			break
		}
	}
	if t.Repo == "" && t.Image == "" {
		return nil, fmt.Errorf("%s: no starting code (repo/, environment/repo/, or an image: task.toml's [environment] docker_image)", dir)
	}
	t.Tests = filepath.Join(dir, "tests")
	if _, err := os.Stat(filepath.Join(t.Tests, "test.sh")); err != nil {
		return nil, fmt.Errorf("%s: tests/test.sh: %w", dir, err)
	}
	if err := readListed(t); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "solution", "solve.sh")); err == nil {
		t.Solution = filepath.Join(dir, "solution", "solve.sh")
	}
	return t, nil
}

func loadFile(path string) (*Task, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Name        string  `json:"name"`
		Instruction string  `json:"instruction"`
		Repo        string  `json:"repo"`
		Tests       string  `json:"tests"`
		Solution    string  `json:"solution"`
		TimeoutSec  float64 `json:"timeout_sec"`
		Runner      string  `json:"runner"`
		AgentSec    float64 `json:"agent_timeout_sec"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	t := &Task{Name: f.Name, Dir: dir, Instruction: f.Instruction, Repo: rel(f.Repo), Tests: rel(f.Tests), Solution: rel(f.Solution), Timeout: 10 * time.Minute}
	if f.TimeoutSec > 0 {
		t.Timeout = time.Duration(f.TimeoutSec * float64(time.Second))
	}
	t.Runner = f.Runner
	if f.AgentSec > 0 {
		t.AgentTimeout = time.Duration(f.AgentSec * float64(time.Second))
	}
	switch {
	case t.Name == "":
		return nil, fmt.Errorf("%s: field name: missing", path)
	case checkRunner(f.Runner) != nil:
		return nil, fmt.Errorf("%s: field runner: %v", path, checkRunner(f.Runner))
	case f.Repo == "":
		return nil, fmt.Errorf("%s: field repo: missing", path)
	case f.Tests == "":
		return nil, fmt.Errorf("%s: field tests: missing", path)
	}
	return t, nil
}

// readTOML reads the subset of TOML task.toml files use: [sections] and
// key = value lines with strings, numbers and booleans. Keys come back as
// "section.key".
func readTOML(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kv := map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want key = value", path, n)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if i := strings.Index(v, " #"); i >= 0 && !strings.HasPrefix(v, `"`) {
			v = strings.TrimSpace(v[:i])
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		if section != "" {
			k = section + "." + k
		}
		kv[k] = v
	}
	return kv, sc.Err()
}

// checkRunner refuses a runner swetouch does not know.
func checkRunner(r string) error {
	switch r {
	case "", RunnerUnittest, RunnerPytest, RunnerGo, RunnerNone:
		return nil
	}
	return fmt.Errorf("want %s, %s, %s or %s, got %q", RunnerUnittest, RunnerPytest, RunnerGo, RunnerNone, r)
}
