package eval

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/task"
)

// LoadTasks is every task in a folder of tasks, one a subfolder, in the
// folder's order; files beside them are not tasks.
func LoadTasks(dir string) ([]*task.Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var tasks []*task.Task
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := task.Load(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// RecordsFrom is where an eval's trials find their task's record (its
// Config.Records): in shared, read from the file named from, when given;
// else in the task's own records.jsonl, and a task without one runs
// vanilla only (nil, nil). A task missing from its records is an error
// naming the file.
func RecordsFrom(shared []*task.Record, from string) func(t *task.Task) (*task.Record, error) {
	return func(t *task.Task) (*task.Record, error) {
		recs, file := shared, from
		if recs == nil {
			file = filepath.Join(t.Dir, "records.jsonl")
			if _, err := os.Stat(file); err != nil {
				return nil, nil // vanilla only
			}
			var err error
			if recs, err = task.LoadRecords(file); err != nil {
				return nil, err
			}
		}
		r, err := task.Find(recs, t.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return r, nil
	}
}
