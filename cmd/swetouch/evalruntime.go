package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/agents/scripted"
	"github.com/swetouch/swetouch/container"
	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
)

// evalRuntime is eval --runtime: each trial a `swetouch run --in-place`
// of its own in a container of its task's image, as run --runtime runs
// one (docs/containers.md), eval keeping the plan, the concurrency, the
// manifest and the results folder.
type evalRuntime struct {
	rt        *container.Runtime
	exe, shim string
	// image is --image, a template (eval.ImageFor); "" for each task's
	// own [environment] docker_image.
	image string
	// flags are run's flags given to eval, less those each trial sets.
	flags []string
	// ro are host paths every container sees read-only at their own
	// path; programs are mounted first on its PATH (Node).
	ro       []string
	programs map[string]string
	env      []string
	// records is the shared records file (absolute), "" for each task's.
	records         string
	modelURL, model string
	endpoints       []string
	plans           string
	pids, memory    int64
}

// runtimeOnlyFlags are run's flags that a trial in a container must not
// be given inside (the container's own), or that each trial sets itself.
var runtimeOnlyFlags = []string{"runtime", "image", "workdir", "keep-history", "in-place", "keep", "steps"}

// runInContainers runs the evaluation with every trial in its task's
// container. No trial is run again for want of a verdict: an image that
// is missing or a container that does not start stays missing, and its
// null says why (as emitted Jobs are never retried).
func (o *evalOptions) runInContainers(ctx context.Context, cfg *eval.Config, stderr io.Writer) error {
	switch {
	case o.emit != "":
		return badInput("--runtime runs the trials here; --emit writes them for an orchestrator: give one")
	case o.upstream.url != "":
		return badInput("--model-upstream is not relayed into a container yet: give --model-url (an endpoint on this machine's loopback)")
	case o.retrySet && o.retryNull > 0:
		return badInput("--retry-null: a trial in a container that ends with no verdict (its image missing, the runtime failing) is not run again; leave it out with --runtime")
	}
	if err := o.agents(cfg); err != nil {
		return err
	}
	if err := o.checkConversations(cfg); err != nil {
		return err
	}
	er, err := o.newEvalRuntime(cfg, stderr)
	if err != nil {
		return err
	}
	cfg.Elsewhere, cfg.RetryNull = er.trial, 0
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := eval.Run(ctx, *cfg)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "swetouch eval: interrupted after %d finished trials (kept in %s); the same command again runs only the trials not yet done\n", n, o.out)
		return exitError{130}
	}
	fmt.Fprintf(stderr, "swetouch eval: ran %d trials in %s containers; score with: swetouch score %s\n", n, o.runtime, o.out)
	return err
}

// checkConversations checks each multi-turn task's package before any
// trial runs, as eval on the host does (its test ids are listed inside,
// by each trial's own run).
func (o *evalOptions) checkConversations(cfg *eval.Config) error {
	m, err := personasModel(o.personas)
	if err != nil {
		return err
	}
	models, err := o.roles.models(cfg.UserModel)
	if err != nil {
		return err
	}
	for _, t := range cfg.Tasks {
		if _, err := conversationFor(t, m, models, nil, sandbox.Setup{}); err != nil {
			return err
		}
	}
	return nil
}

// newEvalRuntime checks what every trial shares (the runtime, each
// task's image, the endpoints) before any trial starts.
func (o *evalOptions) newEvalRuntime(cfg *eval.Config, stderr io.Writer) (*evalRuntime, error) {
	er := &evalRuntime{image: o.image, modelURL: o.modelURL, model: o.modelName, pids: o.limits.pids}
	var err error
	if er.memory, err = parseBytes(o.limits.memory); err != nil {
		return nil, badInput("--memory-limit: %v", err)
	}
	for _, t := range cfg.Tasks {
		if er.image == "" && t.Image == "" {
			return nil, badInput("--runtime %s: task %s names no image ([environment] docker_image in its task.toml); give --image", o.runtime, t.Dir)
		}
	}
	if er.plans, err = filepath.Abs(orString(o.plans, filepath.Join(filepath.Dir(filepath.Clean(o.tasksDir)), "agents"))); err != nil {
		return nil, err
	}
	if o.records != "" {
		if er.records, err = filepath.Abs(o.records); err != nil {
			return nil, err
		}
		er.ro = append(er.ro, er.records)
	}
	if err := er.passFlags(o.runFlags); err != nil {
		return nil, err
	}
	if o.modelURL != "" {
		if _, err := container.LoopbackAddr(o.modelURL); err != nil {
			return nil, badInput("--model-url: %v", err)
		}
		er.endpoints = append(er.endpoints, o.modelURL)
	}
	cache, err := container.CacheDir()
	if err != nil {
		return nil, err
	}
	if er.rt, err = container.Find(o.runtime, cache); err != nil {
		return nil, badInput("--runtime: %v", err)
	}
	if er.exe, err = os.Executable(); err != nil {
		return nil, err
	}
	if static, err := container.Static(er.exe); err == nil && !static {
		fmt.Fprintf(stderr, "swetouch: %s is linked dynamically: it runs in the images only if their C library has what it needs (build with CGO_ENABLED=0 for any image)\n", er.exe)
	}
	if shim := filepath.Join(filepath.Dir(er.exe), "swetouch-shim"); isFile(shim) {
		er.shim = shim
	}
	er.agentInstall(o.agentNames)
	return er, nil
}

// passFlags keeps run's flags given to eval for every trial's run
// inside, the host files they name mounted read-only at their own path
// and the endpoints they name relayed.
func (er *evalRuntime) passFlags(flags []string) error {
	for _, f := range flags {
		name, v, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if slices.Contains(runtimeOnlyFlags, name) {
			continue
		}
		if slices.Contains(pathFlags, name) && v != "" {
			if abs, err := filepath.Abs(v); err == nil && exists(abs) && !underAny(abs, systemDirs) {
				v, er.ro = abs, append(er.ro, abs)
			}
		}
		if slices.Contains(endpointFlags, name) && v != "" {
			if _, err := container.LoopbackAddr(v); err != nil {
				return badInput("--%s: %v", name, err)
			}
			er.endpoints = append(er.endpoints, v)
		}
		er.flags = append(er.flags, "--"+name+"="+v)
	}
	return nil
}

// agentInstall hands a real agent's install and the host's Node to
// every container, read-only, so the task images stay as they are.
func (er *evalRuntime) agentInstall(names []string) {
	if !slices.ContainsFunc(names, func(n string) bool { return !isScripted(n) }) {
		return
	}
	if d := agents.AgentsDir(); exists(d) {
		er.env, er.ro = append(er.env, "SWETOUCH_AGENTS="+d), append(er.ro, d)
	}
	if node, err := exec.LookPath("node"); err == nil {
		if real, err := filepath.EvalSymlinks(node); err == nil {
			er.programs = map[string]string{"node": real}
		}
	}
	for _, k := range []string{"SWETOUCH_USER_API_KEY", "SWETOUCH_JUDGE_API_KEY", "SWETOUCH_REVIEWER_API_KEY"} {
		if _, ok := os.LookupEnv(k); ok {
			er.env = append(er.env, k)
		}
	}
}

// trial runs one trial in a container of its task's image; it fits
// eval.Config.Elsewhere. The runtime's own output goes to the trial's
// container.log.
func (er *evalRuntime) trial(ctx context.Context, s eval.Spec) (*result.Run, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(s.Dir, "container.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	image := s.Task.Image
	if er.image != "" {
		image = eval.ImageFor(er.image, s.Task.Name, s.Task.Image)
	}
	args, ro := er.args(s)
	t := container.Trial{Runtime: er.rt, Image: image, Workdir: s.Task.Workdir, Task: s.Task.Dir, Out: s.Dir,
		Swetouch: er.exe, Shim: er.shim, Args: args, ReadOnly: ro, Programs: er.programs, Env: er.env,
		Endpoints: er.endpoints, Pids: er.pids, Memory: er.memory, Stdout: logf, Stderr: logf}
	if _, err := t.Run(ctx); err != nil {
		// the container was never started: no verdict, saying why
		if werr := container.NoVerdict(s.Dir, s.Task.Dir, fmt.Sprintf("the trial's container could not be run: %v", err)); werr != nil {
			return nil, werr
		}
	}
	return result.Read(filepath.Join(s.Dir, result.File))
}

// args are the trial's `swetouch run` arguments inside, after those
// container.Trial sets (--in-place, --task, --out), and the host paths
// this trial alone adds to the mounts (its record, its plan).
func (er *evalRuntime) args(s eval.Spec) (args, ro []string) {
	ro = slices.Clone(er.ro)
	args = []string{"--condition=" + string(s.Condition), "--agent-name=" + s.Agent}
	if s.Condition != policy.Vanilla {
		records := er.records
		if records == "" {
			records = filepath.Join(s.Task.Dir, "records.jsonl")
			if abs, err := filepath.Abs(records); err == nil {
				records = abs
			}
			ro = append(ro, records)
		}
		args = append(args, "--records="+records)
	}
	for _, f := range er.flags {
		if s.Condition == policy.Vanilla && (strings.HasPrefix(f, "--schedule=") || strings.HasPrefix(f, "--after=")) {
			continue // the user never acts in a vanilla trial
		}
		args = append(args, f)
	}
	if s.Steps > 0 {
		args = append(args, fmt.Sprintf("--steps=%d", s.Steps))
	}
	if isScripted(s.Agent) {
		// as its preset starts it, so a conversation resumes it by the
		// line protocol
		plan := scripted.PlanFile(er.plans, s.Task.Name)
		return append(args, "--", container.InsideSwetouch, "agent", "script", "--plan", plan, "--behaviour", s.Agent, "--session", "{session}", "--message", "{instruction}"), append(ro, plan)
	}
	args = append(args, "--agent="+s.Agent)
	if er.modelURL != "" {
		args = append(args, "--model-url="+er.modelURL)
	}
	if er.model != "" {
		args = append(args, "--model="+er.model)
	}
	return append(args, "--"), ro
}
