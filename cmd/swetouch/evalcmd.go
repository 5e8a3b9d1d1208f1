package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/run"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// evalOptions is `swetouch eval`: its flags, and its run over them.
type evalOptions struct {
	tasksDir, records, conditions, out, plans, modelURL, modelName string
	emit, image, swetouchImage, pvc, namespace                     string
	runtime                                                        string // --runtime: each trial in its task's container
	retrySet                                                       bool   // --retry-null given
	podSecurity, agentImage                                        string
	runFlags                                                       []string // run's flags given to eval, for the emitted jobs
	stepLimit                                                      int
	stepLimitSet                                                   bool
	agentNames, agentArgs                                          []string
	mcpFile, schedule, userURL, userModel, personas                string
	roles                                                          roleFlags
	upstream                                                       upstreamFlags
	bench                                                          benchmarkFlags
	scheduleSteps, after                                           int
	stepsSet                                                       bool // --steps given
	runs, concurrency, retryNull                                   int
	noSandbox                                                      bool
	budget                                                         func() ([]task.VerifyOption, error)
	network                                                        string
	agentTimeout                                                   time.Duration
	limits                                                         limitFlags

	// the conversation's personas and models, read from the flags
	personaModel *conversation.Model
	models       conversation.Models
}

func evalCmd() *cobra.Command {
	var o evalOptions
	c := &cobra.Command{
		Use:   "eval --tasks DIR [--records FILE] --agent NAME... [--conditions vanilla,counter-edit] [--runs N] [--concurrency C] --out DIR",
		Short: "Paired trials: every task under every condition with every agent, N runs; resumable",
		Long: "Agents: naive or careful (the scripted agent, with plans from --plans, default the tasks'\n" +
			"sibling agents/ folder), or claude, codex, gemini, opencode (with --model-url). Records come\n" +
			"from --records or each task's records.jsonl. Finished trials are skipped when eval runs\n" +
			"again; an interrupted eval leaves every finished trial intact. Score with `swetouch score OUT`.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.stepsSet = c.Flags().Changed("steps")
			o.stepLimitSet = c.Flags().Changed("step-limit")
			o.retrySet = c.Flags().Changed("retry-null")
			o.runFlags = runFlagsOf(c)
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c)
	c.MarkFlagRequired("tasks")
	c.MarkFlagRequired("agent")
	c.MarkFlagRequired("out")
	return c
}

// bind adds the flags to c: some are shared with run through helpers
// that take the command.
func (o *evalOptions) bind(c *cobra.Command) {
	c.Flags().StringVar(&o.tasksDir, "tasks", "", "a folder of tasks")
	c.Flags().StringVar(&o.records, "records", "", "dataset-record-v1 JSONL (default: each task's records.jsonl)")
	c.Flags().StringSliceVar(&o.agentNames, "agent", nil, "agents to run (repeat): "+agentList())
	scheduleFlags(c, &o.schedule, &o.scheduleSteps, &o.after)
	o.bench.bind(c.Flags())
	userModelFlags(c, &o.userURL, &o.userModel)
	personasFlag(c, &o.personas)
	o.roles.add(c)
	o.upstream.add(c)
	c.Flags().StringVar(&o.conditions, "conditions", "vanilla,counter-edit", "comma-separated conditions")
	c.Flags().IntVar(&o.runs, "runs", 1, "runs of every trial")
	c.Flags().IntVar(&o.concurrency, "concurrency", 2, "trials at a time")
	c.Flags().IntVar(&o.retryNull, "retry-null", 1, "times a trial that ends with no verdict (the machine's doing, never the agent's) runs again before its null stands")
	c.Flags().StringVar(&o.out, "out", "", "the results folder")
	c.Flags().StringVar(&o.plans, "plans", "", "the scripted agent's plans (default: the tasks folder's sibling agents/)")
	c.Flags().StringVar(&o.modelURL, "model-url", "", "the model endpoint for real agents: the one address their sandboxes reach")
	networkFlag(c, &o.network)
	agentTimeoutFlag(c, &o.agentTimeout)
	o.limits.add(c)
	c.Flags().StringVar(&o.modelName, "model", "", "the model name for real agents")
	c.Flags().StringVar(&o.mcpFile, "mcp", "", `MCP servers for every real agent, each behind the relay: {"mcpServers": {NAME: {"command", "args", "env"}}}`)
	c.Flags().StringArrayVar(&o.agentArgs, "agent-arg", nil, "an extra flag for every real agent's command line (repeat)")
	o.budget = budgetFlag(c)
	c.Flags().BoolVar(&o.noSandbox, "no-sandbox", false, "run agents and tests without isolation (results say so)")
	stepLimitFlag(c, &o.stepLimit)
	c.Flags().StringVar(&o.runtime, "runtime", "", "podman or docker: each trial runs whole in a container of its task's image (--image, else task.toml's [environment] docker_image), as run --runtime runs one; a trial whose container never ran is null, not run again (docs/containers.md)")
	c.Flags().StringVar(&o.emit, "emit", "", "write a job per trial for an orchestrator instead of running: k8s")
	c.Flags().StringVar(&o.image, "image", "", "with --emit or --runtime: the trial's container image: {task} is the task's name, {instance_id} the name as SWE-bench's images spell it (lower case, __ as _1776_: swebench/sweb.eval.x86_64.{instance_id}:latest), {image} the task's own [environment] docker_image")
	c.Flags().StringVar(&o.podSecurity, "pod-security", eval.PodPrivileged, "with --emit: what the trial's container gets for bwrap: privileged, or userns (hostUsers: false with an unmasked /proc; containerd 2 or CRI-O); docs/scale.md")
	c.Flags().StringVar(&o.agentImage, "agent-image", "", "with --emit: an image holding the agent's install at /agent (and cp), copied into each trial's pod at "+eval.EmitAgentDir+", its bin/ on the PATH")
	c.Flags().StringVar(&o.swetouchImage, "swetouch-image", "", "with --emit: an image holding the static swetouch binary at /swetouch")
	c.Flags().StringVar(&o.pvc, "pvc", "", "with --emit: the volume claim holding tasks/, agents/, records.jsonl and results/")
	c.Flags().StringVar(&o.namespace, "namespace", "", "with --emit: the jobs' namespace")
}

func (o *evalOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	cfg := &eval.Config{Runs: o.runs, Concurrency: o.concurrency, RetryNull: o.retryNull, Out: o.out, Progress: stderr, Bar: isTerminal(stderr)}
	if err := o.trials(cfg); err != nil {
		return err
	}
	if o.runtime != "" {
		return o.runInContainers(ctx, cfg, stderr)
	}
	if err := o.users(cfg); err != nil {
		return err
	}
	if err := o.agents(cfg); err != nil {
		return err
	}
	if o.emit != "" && o.schedule == "fraction" {
		return badInput("--schedule fraction: its steps come from each trial's paired vanilla run, which an emitted job does not wait for; give run's --schedule after --after N, or run eval here")
	}
	if o.emit != "" {
		agentDir := ""
		if o.agentImage != "" {
			agentDir = eval.EmitAgentDir
		}
		return emitJobs(stderr, *cfg, o.emit, eval.EmitConfig{Image: o.image, SwetouchImage: o.swetouchImage, PVC: o.pvc, Namespace: o.namespace,
			PodSecurity: o.podSecurity, AgentImage: o.agentImage,
			Command: eval.TrialArgs{SharedRecords: o.records != "", ModelURL: o.modelURL, Model: o.modelName, Flags: o.runFlags, AgentDir: agentDir,
				Scripted: isScripted}.Command})
	}
	if err := o.isolation(cfg); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := eval.Run(ctx, *cfg)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "swetouch eval: interrupted after %d finished trials (kept in %s); the same command again runs only the trials not yet done\n", n, o.out)
		return exitError{130}
	}
	fmt.Fprintf(stderr, "swetouch eval: ran %d trials; score with: swetouch score %s\n", n, o.out)
	return err
}

// trials sets what is run: the tasks, the conditions, the schedule, the
// model that writes the user's messages, and where each task's record is.
func (o *evalOptions) trials(cfg *eval.Config) error {
	var err error
	if cfg.Tasks, err = eval.LoadTasks(o.tasksDir); err != nil {
		return badInput("--tasks: %v", err)
	}
	if len(cfg.Tasks) == 0 {
		return badInput("--tasks: no tasks in %s", o.tasksDir)
	}
	for _, s := range strings.Split(o.conditions, ",") {
		cond, err := policy.ParseCondition(strings.TrimSpace(s))
		if err != nil {
			return badInput("--conditions: %v", err)
		}
		cfg.Conditions = append(cfg.Conditions, cond)
	}
	// the fraction schedule's S is each trial's paired vanilla
	// run's step count, set per trial
	if cfg.Delivery, cfg.CoEditTrigger, err = o.bench.rules(""); err != nil {
		return err
	}
	if cfg.Schedule, err = user.ParseSchedule(o.schedule, max(o.scheduleSteps, 1), o.after); err != nil {
		return badInput("--schedule: %v", err)
	}
	if cfg.Schedule.Kind == "fraction" {
		if o.stepsSet {
			return badInput("--steps: eval takes each trial's S from its paired vanilla run")
		}
		if !slices.Contains(cfg.Conditions, policy.Vanilla) {
			return badInput("--schedule fraction needs the vanilla condition: S is each trial's paired vanilla run's step count")
		}
	}
	if cfg.UserModel, err = userModelFlag(o.userURL, o.userModel); err != nil {
		return err
	}
	var shared []*task.Record
	if o.records != "" {
		if shared, err = task.LoadRecords(o.records); err != nil {
			return badInput("%v", err)
		}
	}
	cfg.Records = eval.RecordsFrom(shared, o.records)
	return nil
}

// users sets a multi-turn task's conversation, each task's package
// checked before any trial runs, and the model upstream recorded.
func (o *evalOptions) users(cfg *eval.Config) error {
	var err error
	if o.personaModel, err = personasModel(o.personas); err != nil {
		return err
	}
	// each task's conversation package is checked before any
	// trial runs; a trial's user is made for its sandbox
	if o.models, err = o.roles.models(cfg.UserModel); err != nil {
		return err
	}
	for _, t := range cfg.Tasks {
		if _, err := conversationFor(t, o.personaModel, o.models, nil, sandbox.Setup{}); err != nil {
			return err
		}
	}
	cfg.PaperSteps = !o.stepLimitSet
	if (o.stepLimit > 0 || cfg.PaperSteps && paperSteps(cfg)) && o.upstream.url == "" && o.modelURL != "" {
		// each trial's step limit is counted where swetouch sees the
		// calls: a recorder of the trial's own in front of the endpoint
		o.upstream.url, o.modelURL = o.modelURL, ""
	}
	cfg.StepLimit = o.stepLimit
	if o.upstream.url != "" {
		if o.modelURL != "" {
			return badInput("give --model-url (an endpoint the agents talk to) or --model-upstream (their provider, recorded), not both")
		}
		if _, err := o.upstream.check(); err != nil {
			return err
		}
		cfg.Upstream = func(dir string, steps *run.StepBudget) (eval.Recorder, error) {
			r, err := o.upstream.start(dir, steps)
			if err != nil {
				return nil, err
			}
			return r, nil
		}
	} else if o.upstream.prices != "" {
		return badInput("--prices needs --model-upstream")
	}
	// cfg.Sandbox as it is when the trial runs (isolation sets it)
	cfg.Conversation = func(t *task.Task) (*run.Conversation, error) {
		return conversationFor(t, o.personaModel, o.models, nil, cfg.Sandbox)
	}
	// UserSWE's ablation: the same user, clear and correct every turn
	cfg.ClearCorrect = func(t *task.Task) (*run.Conversation, error) {
		return conversationFor(t, o.personaModel, o.models, nil, cfg.Sandbox, conversation.WithPersona(conversation.ClearCorrectPersona))
	}
	return nil
}

// agents sets the agents, each as eval starts it on each task.
func (o *evalOptions) agents(cfg *eval.Config) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	plans := o.plans
	if plans == "" {
		plans = filepath.Join(filepath.Dir(filepath.Clean(o.tasksDir)), "agents")
	}
	if plans, err = filepath.Abs(plans); err != nil {
		return err
	}
	var servers []agents.MCPServer
	if o.mcpFile != "" {
		if servers, err = agents.LoadMCPServers(o.mcpFile); err != nil {
			return badInput("--mcp: %v", err)
		}
	}
	for _, name := range o.agentNames {
		a, err := evalAgent(name, agents.Launch{ModelURL: o.modelURL, Model: o.modelName, Swetouch: exe, Args: o.agentArgs, MCP: servers, Plans: plans, StepLimit: o.stepLimit})
		if err != nil && o.emit != "" && !errors.Is(err, agents.ErrUnknown) {
			err = nil // the agent runs in the trial's container, not here
		}
		if err != nil {
			return badInput("--agent: %v", err)
		}
		if o.emit == "" && o.modelURL == "" && o.upstream.url == "" {
			if err := loggedIn(name); err != nil {
				return err
			}
		}
		cfg.Agents = append(cfg.Agents, a)
	}
	return nil
}

// isolation sets the verifier's budget, the sandbox, its limits and its
// network, the model endpoint and the agents' time, the records hidden;
// and admits each multi-turn task once, before its trials (UserSWE U5:
// its tests run sandboxed as the trials' tests run, kept by the task's
// digest).
func (o *evalOptions) isolation(cfg *eval.Config) error {
	var err error
	if cfg.Verify, err = o.budget(); err != nil {
		return err
	}
	if cfg.Sandbox, err = sandboxFlag(o.noSandbox); err != nil {
		return err
	}
	cfg.ModelURL, cfg.AgentTimeout = o.modelURL, o.agentTimeout
	if err := o.limits.set(cfg.Sandbox.Runner); err != nil {
		return err
	}
	if cfg.Sandbox.Runner != nil {
		real := false
		for _, n := range o.agentNames {
			real = real || !isScripted(n)
		}
		if cfg.HostNetwork, err = hostNetwork(o.network, o.modelURL, real && o.upstream.url == "", o.upstream.url != ""); err != nil {
			return err
		}
	}
	if o.records != "" {
		abs, _ := filepath.Abs(o.records)
		cfg.Hidden = append(cfg.Hidden, abs)
	}
	for _, t := range cfg.Tasks {
		conv, err := conversationFor(t, o.personaModel, o.models, nil, cfg.Sandbox)
		if err != nil {
			return err
		}
		if t.Repo == "" {
			// its code is its image's: each trial's run admits it in its
			// container, over the checkout there (run --in-place)
			continue
		}
		if err := admitted(conv != nil, t, cfg.Sandbox, cfg.Verify); err != nil {
			return err
		}
	}
	return nil
}

// evalAgent is a registered agent as eval starts it on each task, with
// what every trial's launch shares (l.Bin is found here).
func evalAgent(name string, l agents.Launch) (eval.Agent, error) {
	a, bin, err := agents.Find(name)
	if err != nil {
		return eval.Agent{}, err
	}
	l.Bin = bin
	ea := eval.Registered(a, l)
	if url := l.ModelURL; url != "" && a.Bin != "" {
		ea.Probe = func(ctx context.Context) error { return agents.ProbeModel(ctx, url, agents.ProbeTimeout) }
	}
	return ea, nil
}

// isScripted reports whether an agent is swetouch itself (a scripted
// one), with no install of its own to find.
func isScripted(name string) bool {
	a, err := agents.Lookup(name)
	return err == nil && a.Bin == ""
}

// loggedIn refuses a real agent given no endpoint that cannot find a
// login of its user's: each of its trials would start, say "Not logged
// in" and end null, the whole eval long.
func loggedIn(name string) error {
	a, err := agents.Lookup(name)
	if err != nil {
		return nil // said elsewhere
	}
	home, _ := os.UserHomeDir()
	if ok, looked := a.LoggedIn(home, os.Getenv); !ok {
		return badInput("--agent %s: no --model-url or --model-upstream, and no login of its own found (looked for %s): every trial would end without reaching a model", name, looked)
	}
	return nil
}

// emitJobs writes the trials not yet done as jobs under OUT/jobs.
func emitJobs(stderr io.Writer, cfg eval.Config, kind string, ec eval.EmitConfig) error {
	if kind != "k8s" {
		return badInput("--emit: want k8s, got %q", kind)
	}
	if ec.Image == "" || ec.SwetouchImage == "" || ec.PVC == "" {
		return badInput("--emit k8s needs --image, --swetouch-image and --pvc")
	}
	jobs, err := eval.EmitJobs(cfg, ec)
	if err != nil {
		return badInput("%v", err)
	}
	dir := filepath.Join(cfg.Out, "jobs")
	if err := eval.WriteJobs(dir, jobs); err != nil {
		return err
	}
	stage, _ := json.MarshalIndent(ec.StagePod(), "", "  ")
	if err := os.WriteFile(filepath.Join(cfg.Out, "stage-pod.json"), append(stage, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "swetouch eval: %d jobs in %s; kubectl apply -k %s, then copy results/ from the volume and run: swetouch score results/\n", len(jobs), dir, dir)
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// paperSteps reports whether some trial of cfg runs a released record
// whose benchmark the paper ran with a step budget, which then needs a
// recorder in front of the agents' endpoint to count.
func paperSteps(cfg *eval.Config) bool {
	if cfg.Records == nil {
		return false
	}
	for _, t := range cfg.Tasks {
		if rec, err := cfg.Records(t); err == nil && rec != nil && rec.PaperStepLimit() > 0 {
			return true
		}
	}
	return false
}
