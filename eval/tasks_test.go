package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/task"
)

// TestLoadTasks: the example tasks, one a subfolder, a file beside them
// not a task; a folder that is not a task is an error, and so is none.
func TestLoadTasks(t *testing.T) {
	tasks, err := LoadTasks(filepath.Join("..", "examples", "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tk := range tasks {
		names = append(names, tk.Name)
	}
	if strings.Join(names, " ") != "go-stack py-discount py-slugify" {
		t.Errorf("tasks %q", names)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if tasks, err := LoadTasks(dir); err != nil || len(tasks) != 0 {
		t.Errorf("a folder with a file only: %d tasks, %v", len(tasks), err)
	}
	os.Mkdir(filepath.Join(dir, "not-a-task"), 0o755)
	if _, err := LoadTasks(dir); err == nil {
		t.Error("a folder that is not a task loaded")
	}
	if _, err := LoadTasks(filepath.Join(dir, "gone")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no such folder: %v", err)
	}
}

// TestRecordsFrom: shared records answer for every task, a task missing
// from them named with the file; without shared, the task's own
// records.jsonl, and a task with none runs vanilla only.
func TestRecordsFrom(t *testing.T) {
	ex := filepath.Join("..", "examples", "tasks")
	load := func(n string) *task.Task {
		tk, err := task.Load(filepath.Join(ex, n))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	discount, stack := load("py-discount"), load("go-stack")
	own := RecordsFrom(nil, "")
	if r, err := own(discount); err != nil || r == nil || r.InstanceID != "py-discount" {
		t.Errorf("its own records: %v, %v", r, err)
	}
	shared, err := task.LoadRecords(filepath.Join(ex, "py-discount", "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	from := RecordsFrom(shared, "shared.jsonl")
	if r, err := from(discount); err != nil || r == nil || r.InstanceID != "py-discount" {
		t.Errorf("shared: %v, %v", r, err)
	}
	if _, err := from(stack); err == nil || !strings.HasPrefix(err.Error(), "shared.jsonl: ") {
		t.Errorf("a task the shared records lack: %v", err)
	}
	bare := *stack
	bare.Dir = t.TempDir()
	if r, err := own(&bare); r != nil || err != nil {
		t.Errorf("no records.jsonl: %v, %v", r, err)
	}
}
