package swebench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// Instance is one SWE-bench task instance, with the dataset's field names.
type Instance struct {
	Repo                   string `json:"repo"`
	InstanceID             string `json:"instance_id"`
	BaseCommit             string `json:"base_commit"`
	Patch                  string `json:"patch"`
	TestPatch              string `json:"test_patch"`
	ProblemStatement       string `json:"problem_statement"`
	HintsText              string `json:"hints_text"`
	CreatedAt              string `json:"created_at"`
	Version                string `json:"version"`
	FailToPass             Tests  `json:"-"`
	PassToPass             Tests  `json:"-"`
	EnvironmentSetupCommit string `json:"environment_setup_commit"`
}

// UnmarshalJSON reads an instance, naming the list field at fault.
func (in *Instance) UnmarshalJSON(b []byte) error {
	type plain Instance
	var aux struct {
		*plain
		F2P json.RawMessage `json:"FAIL_TO_PASS"`
		P2P json.RawMessage `json:"PASS_TO_PASS"`
	}
	aux.plain = (*plain)(in)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		to   *Tests
	}{{"FAIL_TO_PASS", aux.F2P, &in.FailToPass}, {"PASS_TO_PASS", aux.P2P, &in.PassToPass}} {
		if len(f.raw) == 0 {
			continue
		}
		if err := f.to.UnmarshalJSON(f.raw); err != nil {
			return fmt.Errorf("field %s: %v", f.name, err)
		}
	}
	return nil
}

// MarshalJSON writes the instance with its lists as JSON lists.
func (in Instance) MarshalJSON() ([]byte, error) {
	type plain Instance
	return json.Marshal(struct {
		plain
		F2P []string `json:"FAIL_TO_PASS"`
		P2P []string `json:"PASS_TO_PASS"`
	}{plain(in), nonNil(in.FailToPass), nonNil(in.PassToPass)})
}

func nonNil(t Tests) []string {
	if t == nil {
		return []string{}
	}
	return t
}

// Tests is a list of test ids as the dataset holds it: a JSON list, or
// (as on the Hugging Face hub's files) a JSON string holding one.
type Tests []string

// UnmarshalJSON reads either form.
func (t *Tests) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		b = []byte(s)
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("want a list of test ids (or a string holding one as JSON): %v", err)
	}
	*t = l
	return nil
}

var (
	commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)
	idRe     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// check says what is wrong with the instance for a task: the field and why.
func (in Instance) check() (string, error) {
	switch {
	case !idRe.MatchString(in.InstanceID):
		return "instance_id", fmt.Errorf("want letters, digits, '.', '_' and '-', got %q", in.InstanceID)
	case !commitRe.MatchString(in.BaseCommit):
		return "base_commit", fmt.Errorf("want 40 lowercase hex digits, got %q", in.BaseCommit)
	case !strings.HasPrefix(in.TestPatch, "diff --git "):
		return "test_patch", fmt.Errorf("want a diff starting with \"diff --git \"")
	case !strings.HasPrefix(in.Patch, "diff --git "):
		return "patch", fmt.Errorf("want a diff starting with \"diff --git \"")
	case len(in.FailToPass) == 0:
		return "FAIL_TO_PASS", fmt.Errorf("empty: the instance has no test that the fix makes pass")
	}
	if _, err := SpecFor(in.Repo, in.Version); err != nil {
		return "repo/version", err
	}
	// test.sh names these files and tasks copy them: inside the workspace
	for _, f := range append(ModifiedFiles(in.TestPatch), TestDirectives("", in.TestPatch)...) {
		if !filepath.IsLocal(f) {
			return "test_patch", fmt.Errorf("names %q, a path outside the repository", f)
		}
	}
	return "", nil
}

// ReadInstances reads a dataset file: JSON lines, or one JSON array of
// instances. Every instance is checked; a fault names the file, the line
// and the field.
func ReadInstances(path string) ([]Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return readArray(path, b)
	}
	var out []Instance
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var in Instance
		if err := json.Unmarshal(line, &in); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if field, err := in.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: field %s: %v", path, n, field, err)
		}
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, dupes(path, out)
}

func readArray(path string, b []byte) ([]Instance, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonerr.Locate(path, b, 0, "", err)
	}
	var out []Instance
	for i, r := range raw {
		line := 1 + bytes.Count(b[:bytes.Index(b, r)], []byte("\n"))
		var in Instance
		if err := json.Unmarshal(r, &in); err != nil {
			return nil, fmt.Errorf("%s:%d: instance [%d]: %v", path, line, i, err)
		}
		if field, err := in.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: instance [%d]: field %s: %v", path, line, i, field, err)
		}
		out = append(out, in)
	}
	return out, dupes(path, out)
}

func dupes(path string, ins []Instance) error {
	seen := map[string]bool{}
	for _, in := range ins {
		if seen[in.InstanceID] {
			return fmt.Errorf("%s: field instance_id: %s appears twice", path, in.InstanceID)
		}
		seen[in.InstanceID] = true
	}
	return nil
}
