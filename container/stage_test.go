package container

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestStagedTaskStaysInItsImage: the container's copy of a task whose
// code lives in its image has no repo/ (seen failing with the empty
// repo/ the copy was given before task.Load took image tasks), and
// loads as an image task.
func TestStagedTaskStaysInItsImage(t *testing.T) {
	dir := taskFor(t, instance{FailToPass: []string{"a"}, PassToPass: []string{"b"}}, "localhost/x:1")
	copied, err := stageTask(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(copied, "repo")); err == nil {
		t.Error("the staged task has a repo/")
	}
	tk, err := task.Load(copied)
	if err != nil || !tk.CodeInImage() || tk.Image != "localhost/x:1" || tk.Workdir != "/testbed" {
		t.Errorf("the staged task: %+v, %v: want an image task", tk, err)
	}
}
