package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/devdata"
)

// TestTable2FromRelease: records sizes on the released v0.1.2 records
// gives the paper's Table 2 Counter-Edit sizes: 7.0 / 1.04 (Verified),
// 13.0 (Pro; its files 1.44 against the paper's 1.40), 10.8 / 1.52
// (DeepSWE).
func TestTable2FromRelease(t *testing.T) {
	dir := filepath.Join(devdata.Shared(t), "data", "swe-touch-v0.1.2")
	var args []string
	for _, f := range []string{"swe_bench_verified", "swe_bench_pro", "deepswe"} {
		args = append(args, filepath.Join(dir, f+".jsonl"))
	}
	var stdout, stderr bytes.Buffer
	if code := execute(append([]string{"records", "sizes"}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"swe_bench_verified  –                        7.0 / 1.04                  192",
		"swe_bench_pro       –                        13.0 / 1.44                 25",
		"deepswe             –                        10.8 / 1.52                 25"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %q in\n%s", want, stdout.String())
		}
	}
}

// TestSizesBadReference: a references line without its patch is bad
// input naming the file, line and field.
func TestSizesBadReference(t *testing.T) {
	refs := filepath.Join(t.TempDir(), "instances.jsonl")
	os.WriteFile(refs, []byte(`{"instance_id": "x", "patch": ""}`+"\n"+`{"instance_id": "y"}`+"\n"), 0o644)
	rec := filepath.Join("..", "..", "examples", "tasks", "py-discount", "records.jsonl")
	var stdout, stderr bytes.Buffer
	code := execute([]string{"records", "sizes", rec, "--references", refs}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), refs+":2: patch: missing") {
		t.Errorf("exit %d, %s", code, stderr.String())
	}
}
