package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadReadsEnvironmentAsEnvironment: Load and Environment read
// [environment] with one reader, so a workdir Environment refuses is
// refused by Load too, naming the file and field.
func TestLoadReadsEnvironmentAsEnvironment(t *testing.T) {
	dir := t.TempDir()
	for p, s := range map[string]string{
		"instruction.md": "fix it\n",
		"tests/test.sh":  "#!/bin/bash\nexit 0\n",
		"task.toml":      "[task]\nname = \"x\"\n\n[environment]\ndocker_image = \"img:1\"\nworkdir = \"testbed\"\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, _, eerr := Environment(dir)
	_, lerr := Load(dir)
	for name, err := range map[string]error{"Environment": eerr, "Load": lerr} {
		if err == nil || !strings.Contains(err.Error(), "task.toml: field environment.workdir") {
			t.Errorf("%s: a relative workdir: %v", name, err)
		}
	}
	os.WriteFile(filepath.Join(dir, "task.toml"), []byte("[environment]\ndocker_image = \"img:1\"\nworkdir = \"/w\"\n"), 0o644)
	tk, err := Load(dir)
	img, wd, _ := Environment(dir)
	if err != nil || tk.Image != img || tk.Workdir != wd || img != "img:1" || wd != "/w" || !tk.CodeInImage() {
		t.Errorf("Load %+v (%v) and Environment %q %q disagree", tk, err, img, wd)
	}
}
