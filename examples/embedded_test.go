package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// TestEmbeddedCurrent: the examples the binary carries are the ones in
// this folder: packing the folder again gives the embedded archive byte
// for byte (run `go generate ./examples` after changing them).
func TestEmbeddedCurrent(t *testing.T) {
	testsupport.Slow(t)
	fresh := filepath.Join(t.TempDir(), "examples.tar.gz")
	if out, err := exec.Command("go", "run", "../scripts/pack-examples", "-o", fresh).CombinedOutput(); err != nil {
		t.Fatalf("pack-examples: %v\n%s", err, out)
	}
	a, _ := os.ReadFile(fresh)
	b, err := os.ReadFile("examples.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("examples.tar.gz is stale: run go generate ./examples")
	}
}
