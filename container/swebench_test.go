package container

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImageName(t *testing.T) {
	if got := ImageName(DefaultImageName, "sympy__sympy-21847"); got != "swebench/sweb.eval.x86_64.sympy_1776_sympy-21847:latest" {
		t.Errorf("got %s", got)
	}
	if got := ImageName("localhost/env/{id}", "Django__Django-1"); got != "localhost/env/django_1776_django-1" {
		t.Errorf("got %s", got)
	}
	if err := (Spec{Tag: ImageName(DefaultImageName, "astropy__astropy-12907"), Repo: "/r"}).Check(); err != nil {
		t.Errorf("SWE-bench's naming is refused: %v", err)
	}
}

func TestReadInstances(t *testing.T) {
	dir := t.TempDir()
	base := strings.Repeat("a", 40)
	jsonl := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(jsonl, []byte(`{"instance_id": "a__b-1", "repo": "a/b", "base_commit": "`+base+`", "version": "1.0"}`+"\n\n"+`{"instance_id": "a__b-2", "repo": "a/b", "base_commit": "main"}`+"\n"), 0o644)
	if _, err := ReadInstances(jsonl); err == nil || !strings.Contains(err.Error(), "rows.jsonl:3: field base_commit") {
		t.Errorf("a bad base commit: %v", err)
	}
	arr := filepath.Join(dir, "rows.json")
	os.WriteFile(arr, []byte(`[{"instance_id": "a__b-1", "repo": "a/b", "base_commit": "`+base+`"}]`), 0o644)
	rows, err := ReadInstances(arr)
	if err != nil || len(rows) != 1 || rows[0].Repo != "a/b" {
		t.Errorf("a JSON array: %v %v", rows, err)
	}
	if s := SpecFor(Instance{InstanceID: "sympy__sympy-1", Repo: "sympy/sympy", BaseCommit: base}, "/m", DefaultImageName, []string{"x"}, nil); strings.Join(s.Packages, " ") != "python-is-python3 python3-mpmath x" {
		t.Errorf("sympy's packages: %v", s.Packages)
	}
}
