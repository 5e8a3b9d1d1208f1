package swebench

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// official is the official swebench package's parsers and grading, in a
// Python process of the venv scripts/install-python-peers.sh makes
// (testdata/official.py answers one JSON line per request).
type official struct {
	in  *json.Encoder
	out *bufio.Scanner
}

// officialAnswer is official.py's answer.
type officialAnswer struct {
	Map      map[string]string `json:"map"`
	Error    string            `json:"error"`
	Found    bool              `json:"found"`
	Resolved bool              `json:"resolved"`
	Report   map[string]struct {
		Success []string `json:"success"`
		Failure []string `json:"failure"`
	} `json:"report"`
}

// venvPython is the venv's python, or why there is none.
func venvPython() (string, string) {
	dir := os.Getenv("SWETOUCH_PY")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "swetouch-py")
	}
	py := filepath.Join(dir, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		return "", "no venv with the official swebench package at " + dir + " (run scripts/install-python-peers.sh)"
	}
	if out, err := exec.Command(py, filepath.Join("testdata", "official.py")).CombinedOutput(); err != nil {
		return "", "the venv at " + dir + " cannot load the official parsers (run scripts/install-python-peers.sh): " + err.Error() + ": " + string(out)
	}
	return py, ""
}

// startOfficial starts official.py, skipping tb when the venv is absent.
func startOfficial(tb testing.TB) *official {
	tb.Helper()
	py, why := venvPython()
	if py == "" {
		tb.Skip(why)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "official.py"))
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close(); cmd.Wait() })
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &official{in: json.NewEncoder(w), out: sc}
}

func (o *official) ask(tb testing.TB, req any) officialAnswer {
	tb.Helper()
	if err := o.in.Encode(req); err != nil {
		tb.Fatal(err)
	}
	if !o.out.Scan() {
		tb.Fatalf("official.py gave no answer: %v", o.out.Err())
	}
	var a officialAnswer
	if err := json.Unmarshal(o.out.Bytes(), &a); err != nil {
		tb.Fatalf("official.py's answer %q: %v", o.out.Text(), err)
	}
	return a
}

// parse is the official parser's map of log, or its error.
func (o *official) parse(tb testing.TB, parser, log string) officialAnswer {
	return o.ask(tb, map[string]string{"parser": parser, "log": log})
}

// grade is the official get_logs_eval and report on log for in.
func (o *official) grade(tb testing.TB, in Instance, log string) officialAnswer {
	return o.ask(tb, map[string]any{"log": log, "grade": map[string]any{
		"repo": in.Repo, "version": in.Version, "FAIL_TO_PASS": nonNil(in.FailToPass), "PASS_TO_PASS": nonNil(in.PassToPass)}})
}
