package swebench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
)

// DefaultImage is SWE-bench's own name of an instance's evaluation image
// on its registry namespace: {id} is the instance id lowercased, with
// "__" as "_1776_" (the harness's instance_image_key).
const DefaultImage = "swebench/sweb.eval.x86_64.{id}:latest"

// Workdir is where SWE-bench's images hold the repository.
const Workdir = "/testbed"

// TimeoutSec is the verifier's timeout: the harness's default.
const TimeoutSec = 1800

// ImageName fills tmpl for an instance: {id} (SWE-bench's form, see
// DefaultImage), {instance_id} (as the dataset spells it), {repo} (the
// repository's name, "sympy"), {version}.
func ImageName(tmpl string, in Instance) (string, error) {
	_, name, _ := strings.Cut(in.Repo, "/")
	s := strings.NewReplacer(
		"{id}", strings.ReplaceAll(strings.ToLower(in.InstanceID), "__", "_1776_"),
		"{instance_id}", in.InstanceID,
		"{repo}", name,
		"{version}", in.Version,
	).Replace(tmpl)
	if s == "" || strings.ContainsAny(s, "{}\"\\ \t\r\n") {
		return "", fmt.Errorf("image template %q gives %q: want an image reference (placeholders {id}, {instance_id}, {repo}, {version})", tmpl, s)
	}
	return s, nil
}

// WriteOption configures WriteTask.
type WriteOption func(*writer)

type writer struct {
	image   string
	repoGit string
}

// WithImage is the template of the task's docker_image (DefaultImage
// unless given).
func WithImage(tmpl string) WriteOption { return func(w *writer) { w.image = tmpl } }

// WithRepo puts the repository at base_commit in the task's repo/, read
// from the local git directory dir, so the task also runs where its
// image does not (swetouch run on the host): without it the code lives
// in the image alone.
func WithRepo(dir string) WriteOption { return func(w *writer) { w.repoGit = dir } }

// WriteTask writes in's Harbor task directory under out (out/ID): the
// instruction, task.toml, tests/ (test.sh, the test patch, config.json)
// and solution/ (the gold patch). It returns the directory.
func WriteTask(in Instance, out string, opts ...WriteOption) (string, error) {
	w := writer{image: DefaultImage}
	for _, o := range opts {
		o(&w)
	}
	if field, err := in.check(); err != nil {
		return "", fmt.Errorf("instance %s: field %s: %v", in.InstanceID, field, err)
	}
	image, err := ImageName(w.image, in)
	if err != nil {
		return "", err
	}
	sh, err := TestScript(in)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(out, in.InstanceID)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	config, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return "", err
	}
	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{"instruction.md", in.ProblemStatement, 0o644},
		{"task.toml", taskTOML(in, image), 0o644},
		{"tests/test.sh", sh, 0o755},
		{"tests/test.patch", in.TestPatch, 0o644},
		{"tests/config.json", string(config) + "\n", 0o644},
		{"solution/solve.sh", solveSh, 0o755},
		{"solution/patch.diff", in.Patch, 0o644},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(f.data), f.mode); err != nil {
			return "", err
		}
	}
	if w.repoGit != "" {
		repo := filepath.Join(dir, "repo")
		if err := archive(w.repoGit, in.BaseCommit, repo); err != nil {
			return "", fmt.Errorf("instance %s: %v", in.InstanceID, err)
		}
		if err := baseCopies(repo, filepath.Join(dir, "tests", "base"), ModifiedFiles(in.TestPatch)); err != nil {
			return "", fmt.Errorf("instance %s: %v", in.InstanceID, err)
		}
	}
	return dir, nil
}

// baseCopies copies the files the test patch changes from repo to base,
// for test.sh to restore them where the workspace has no git.
func baseCopies(repo, base string, files []string) error {
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			return fmt.Errorf("the test patch changes %s, which the base commit lacks: %v", f, err)
		}
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// archive writes commit's tree from the git directory gitDir into dir.
func archive(gitDir, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// a buffer each: the two run at once, and a bytes.Buffer is not
	// safe for two writers
	var gitErr, tarErr bytes.Buffer
	gitCmd := exec.Command("git", "--git-dir="+gitDir, "archive", "--format=tar", commit)
	tar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := gitCmd.StdoutPipe()
	if err != nil {
		return err
	}
	tar.Stdin, gitCmd.Stderr, tar.Stderr = pipe, &gitErr, &tarErr
	if err := tar.Start(); err != nil {
		return err
	}
	gerr := gitCmd.Run()
	terr := tar.Wait()
	if gerr != nil || terr != nil {
		return fmt.Errorf("git archive %s from %s: %v %v: %s", commit, gitDir, gerr, terr, strings.TrimSpace(gitErr.String()+tarErr.String()))
	}
	return nil
}

func taskTOML(in Instance, image string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	// the name under [metadata]: Harbor's [task] name is a package's
	// "org/name", and Harbor leaves a task whose [task] name is not out
	// of a dataset without a word (harbor 0.26.0); swetouch reads either
	return fmt.Sprintf(`version = "1.0"

[metadata]
name = %s
source = "swe-bench"
repo = %s
version = %s
base_commit = %s

[environment]
docker_image = %s
workdir = %q

[verifier]
timeout_sec = %d
# SWE-bench's tests are the workspace's own, patched in by test.sh: no
# canary file of ours sits among them
runner = "none"
`, q(in.InstanceID), q(in.Repo), q(in.Version), q(in.BaseCommit), q(image), Workdir, TimeoutSec)
}

const solveSh = `#!/bin/bash
# The instance's gold patch, applied in the workspace (the working directory).
set -euo pipefail
git -c safe.directory='*' apply -v "$(dirname "${BASH_SOURCE[0]}")/patch.diff"
`

// shq quotes s for bash.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestScript is tests/test.sh for in: SWE-bench's eval script for its
// repository and version, its log graded by swetouch grade.
func TestScript(in Instance) (string, error) {
	spec, err := SpecFor(in.Repo, in.Version)
	if err != nil {
		return "", err
	}
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = shq(s)
		}
		return strings.Join(q, " ")
	}
	var b strings.Builder
	err = testSh.Execute(&b, map[string]any{
		"ID": in.InstanceID, "Repo": in.Repo, "Version": in.Version, "Parser": spec.ParserName,
		"Base": in.BaseCommit, "Eval": spec.Eval, "Install": spec.Install,
		"Reset": quote(ModifiedFiles(in.TestPatch)), "TestCmd": spec.TestCmd,
		"Directives": quote(TestDirectives(in.Repo, in.TestPatch)),
		"Start":      StartMarker, "End": EndMarker,
	})
	return b.String(), err
}

var testSh = template.Must(template.New("test.sh").Parse(`#!/bin/bash
# SWE-bench's evaluation of {{.ID}} ({{.Repo}} {{.Version}}), written by
# swetouch tasks swebench: restore the files the test patch changes to the
# base, apply the test patch, run the repository's test command on the test
# files it touches, and grade the log as SWE-bench does ({{.Parser}}) with
# swetouch grade, which writes every test's outcome to $SWETOUCH_RESULTS.
# Exit 0 exactly when every FAIL_TO_PASS and PASS_TO_PASS test passes; 126
# or 127 when a program the tests need is not here (no verdict).
set -uo pipefail
tests="${TESTS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
# the workspace: the verifier's copy, else the image's /testbed, else here
ws="${WORKSPACE:-/testbed}"
[ -n "${WORKSPACE:-}" ] || [ -d "$ws" ] || ws=$PWD
cd "$ws" || exit 1
swetouch="${SWETOUCH_GRADE:-$(command -v swetouch)}"
if [ -z "$swetouch" ]; then
  echo "test.sh: swetouch is not on PATH: it grades the log (swetouch grade)" >&2
  exit 127
fi
if ! command -v git >/dev/null; then
  echo "test.sh: git is not on PATH: it restores the test files and applies the test patch" >&2
  exit 127
fi
if [ -f /opt/miniconda3/bin/activate ]; then
  # SWE-bench's own image: its conda environment, and the install its eval
  # script runs again before the tests
  source /opt/miniconda3/bin/activate
  conda activate testbed
{{- if .Install}}
  {{.Install}}
{{- end}}
fi
{{- range .Eval}}
{{.}}
{{- end}}
git() { command git -c safe.directory='*' -c core.fileMode=false "$@"; }
# restore the files the test patch changes to the base: from the task's
# copy of them (tests/base/, written where the repository was at hand),
# else from the workspace's git (SWE-bench's own image: the base commit;
# a swetouch workspace: its one root commit); swetouch's verifier copies
# the workspace without .git, so there the copy is what restores them
base={{.Base}}
reset() {
{{- if .Reset}}
  local f
  if [ -d "$tests/base" ]; then
    for f in {{.Reset}}; do
      mkdir -p "$(dirname "$f")" && cp "$tests/base/$f" "$f" || return 1
    done
  elif git rev-parse --git-dir >/dev/null 2>&1; then
    git cat-file -e "$base^{commit}" 2>/dev/null || base=$(git rev-list --max-parents=0 HEAD | tail -n 1)
    git checkout "$base" -- {{.Reset}}
  else
    echo "test.sh: no base copy of the test files and no git history here: the test patch goes onto them as they are" >&2
  fi
{{- else}}
  :
{{- end}}
}
if ! reset; then
  echo "test.sh: cannot restore the test files to the base commit" >&2
  exit 1
fi
if ! git apply -v "$tests/test.patch"; then
  echo "test.sh: the test patch does not apply" >&2
  exit 1
fi
log=$(mktemp)
echo {{printf "%q" .Start}} >"$log"
{{.TestCmd}} {{.Directives}} >>"$log" 2>&1
code=$?
echo {{printf "%q" .End}} >>"$log"
cat "$log"
reset
if [ "$code" -eq 126 ] || [ "$code" -eq 127 ]; then
  echo "test.sh: the test command exited $code: a program it needs is not here" >&2
  exit "$code"
fi
"$swetouch" grade --config "$tests/config.json" --log "$log" ${SWETOUCH_RESULTS:+--results "$SWETOUCH_RESULTS"}
verdict=$?
if [ -d /logs/verifier ]; then
  # Harbor's reward
  [ "$verdict" -eq 0 ] && echo 1 >/logs/verifier/reward.txt || echo 0 >/logs/verifier/reward.txt
fi
exit "$verdict"
`))
