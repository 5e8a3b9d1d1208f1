package container

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Instance is what an environment image needs of a SWE-bench row.
type Instance struct {
	InstanceID string `json:"instance_id"`
	Repo       string `json:"repo"`
	BaseCommit string `json:"base_commit"`
	Version    string `json:"version"`
}

// ReadInstances reads SWE-bench rows as the dataset is distributed: JSON
// Lines, or one JSON array. A row without an instance id, repository or
// base commit is an error naming its file, line (or index) and field.
func ReadInstances(path string) ([]Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []Instance
	var lines []int // each JSONL row's line
	where := func(i int) string { return fmt.Sprintf("%s:%d", path, lines[i]) }
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &rows); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		where = func(i int) string { return fmt.Sprintf("%s: row %d", path, i) }
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var r Instance
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("%s:%d: invalid JSON: %v", path, n, err)
			}
			rows, lines = append(rows, r), append(lines, n)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	for i, r := range rows {
		switch {
		case r.InstanceID == "":
			return nil, fmt.Errorf("%s: field instance_id: missing", where(i))
		case r.Repo == "":
			return nil, fmt.Errorf("%s: field repo: missing", where(i))
		case !fullHash.MatchString(r.BaseCommit):
			return nil, fmt.Errorf("%s: field base_commit: want a full 40-digit hash, got %q", where(i), r.BaseCommit)
		}
	}
	return rows, nil
}

// DefaultImageName is SWE-bench's own naming of an instance's image
// ({id} the instance id, its "__" written "_1776_" as Docker Hub needs),
// so that tasks naming SWE-bench's images find the ones built here.
const DefaultImageName = "swebench/sweb.eval.x86_64.{id}:latest"

// ImageName is the template's name for the instance.
func ImageName(template, id string) string {
	return strings.ReplaceAll(template, "{id}", strings.ToLower(strings.ReplaceAll(id, "__", "_1776_")))
}

// repoPackages are the Debian packages a repository's tests need beyond
// DefaultPackages, as far as this machine has verified them (sympy's dev
// rows, ../shared/data/swebench-dev: Python 3.11, mpmath 1.2.1, and
// `python` for bin/test). A repository not listed gets the defaults and
// what --package and --pip add.
var repoPackages = map[string][]string{
	"sympy/sympy": {"python-is-python3", "python3-mpmath"},
}

// SpecFor is the image spec of a row: its repository's packages, the
// local repository given for it, and the name the template gives it.
func SpecFor(r Instance, repo, template string, packages, pip []string) Spec {
	pkgs := append(slices.Clone(repoPackages[r.Repo]), packages...)
	return Spec{Tag: ImageName(template, r.InstanceID), Repo: repo, Commit: r.BaseCommit, Packages: pkgs, Pip: pip}
}
