package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// template is one of the demo's trial folders, read once.
type template struct {
	result map[string]json.RawMessage
	task   string
	agent  string
	cond   string
	files  map[string][]byte // the folder's other files, by name
}

// generate writes n trials into out in eval's layout
// (<agent>/<condition>/<task>/run-<r>/), copies of the demo's trials:
// copy k of the demo is batch k/5's tasks (each task renamed
// <task>-<batch>) and their run k%5, so every task has five runs, as a
// benchmark run with --runs 5 has. Only result.json changes (the task's
// name); trajectory.jsonl, final.diff and agent.log are the demo's own.
func generate(demo, out string, n int) error {
	ts, err := templates(demo)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return fmt.Errorf("no trials under %s", demo)
	}
	written := 0
	for k := 0; written < n; k++ {
		batch, run := k/5, k%5
		for _, t := range ts {
			if written == n {
				break
			}
			task := fmt.Sprintf("%s-%05d", t.task, batch)
			dir := filepath.Join(out, t.agent, t.cond, task, fmt.Sprintf("run-%d", run))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			res := map[string]json.RawMessage{}
			for k, v := range t.result {
				res[k] = v
			}
			name, _ := json.Marshal(task)
			res["task"] = name
			if _, ok := res["instance"]; ok {
				res["instance"] = name
			}
			b, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644); err != nil {
				return err
			}
			for f, data := range t.files {
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					return err
				}
			}
			written++
		}
	}
	return nil
}

// templates reads the demo's trial folders, in a fixed order.
func templates(demo string) ([]template, error) {
	var dirs []string
	err := filepath.WalkDir(demo, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && e.Name() == "result.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var out []template
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "result.json"))
		if err != nil {
			return nil, err
		}
		t := template{files: map[string][]byte{}}
		if err := json.Unmarshal(b, &t.result); err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		for key, dst := range map[string]*string{"task": &t.task, "agent_name": &t.agent, "condition": &t.cond} {
			if err := json.Unmarshal(t.result[key], dst); err != nil {
				return nil, fmt.Errorf("%s/result.json: %s: %v", d, key, err)
			}
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Name() == "result.json" || e.IsDir() {
				continue
			}
			if t.files[e.Name()], err = os.ReadFile(filepath.Join(d, e.Name())); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// countResults counts the result.json files under dir.
func countResults(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Name() == "result.json" {
			n++
		}
		return err
	})
	return n, err
}
