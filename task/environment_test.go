package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "task.toml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if img, wd, err := Environment(dir); err != nil || img != "" || wd != "" {
		t.Errorf("no task.toml: %q %q %v", img, wd, err)
	}
	write("[task]\nname = \"x\"\n\n[environment]\ndocker_image = \"swebench/sweb.eval.x86_64.sympy_1776_sympy-21847:latest\"\nworkdir = \"/testbed\"\n")
	if img, wd, err := Environment(dir); err != nil || img != "swebench/sweb.eval.x86_64.sympy_1776_sympy-21847:latest" || wd != "/testbed" {
		t.Errorf("got %q %q %v", img, wd, err)
	}
	for _, bad := range []string{"testbed", "/", "/a/../b"} {
		write("[environment]\nworkdir = \"" + bad + "\"\n")
		if _, _, err := Environment(dir); err == nil || !strings.Contains(err.Error(), "field environment.workdir") {
			t.Errorf("workdir %q: %v", bad, err)
		}
	}
}
