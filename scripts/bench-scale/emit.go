package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// emitBench times eval --emit k8s of n trials: the example tasks copied
// (each copy renamed) to n/10 tasks, with two conditions and five runs
// each, as one agent.
func emitBench(bin, tmp string, n int) (measured, error) {
	ex := filepath.Join(tmp, "examples")
	if err := runQuiet(bin, "examples", "extract", ex); err != nil {
		return measured{}, err
	}
	src := filepath.Join(ex, "tasks")
	entries, err := os.ReadDir(src)
	if err != nil {
		return measured{}, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	tasks := filepath.Join(tmp, "emit-tasks")
	for i := 0; i < n/10; i++ {
		name := names[i%len(names)]
		copyName := fmt.Sprintf("%s-%05d", name, i/len(names))
		if err := copyTask(filepath.Join(src, name), filepath.Join(tasks, copyName), name, copyName); err != nil {
			return measured{}, err
		}
	}
	return measure(bin, "eval", "--tasks", tasks, "--plans", filepath.Join(ex, "agents"), "--agent", "naive",
		"--conditions", "vanilla,counter-edit", "--runs", "5", "--out", filepath.Join(tmp, "emitted"),
		"--emit", "k8s", "--image", "registry.example/{task}:base", "--swetouch-image", "registry.example/swetouch:v1", "--pvc", "swetouch-data")
}

// copyTask copies a task folder, its name in task.toml and its records
// replaced by the copy's.
func copyTask(from, to, name, newName string) error {
	return filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := e.Info()
		if err != nil {
			return err
		}
		if e.IsDir() {
			return os.MkdirAll(dst, info.Mode().Perm())
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "task.toml" || rel == "records.jsonl" {
			b = []byte(strings.ReplaceAll(string(b), `"`+name+`"`, `"`+newName+`"`))
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
}
