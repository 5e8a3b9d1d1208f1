package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/agents/scripted"
	"github.com/swetouch/swetouch/demo"
	"github.com/swetouch/swetouch/run"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/report"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// runOptions is `swetouch run`: its flags, and its run over them.
type runOptions struct {
	taskDir, records, instance, condition, match, out, agent, agentName, modelURL, modelName string
	keep, noSandbox, verbose                                                                 bool
	budget                                                                                   func() ([]task.VerifyOption, error)
	network                                                                                  string
	agentTimeout                                                                             time.Duration
	limits                                                                                   limitFlags
	mcpFile, schedule, userURL, userModel, personas                                          string
	roles                                                                                    roleFlags
	upstream                                                                                 upstreamFlags
	bench                                                                                    benchmarkFlags
	scheduleSteps, after                                                                     int
	visible, agentArgs                                                                       []string
	args                                                                                     []string // the agent's command, after --
	ctr                                                                                      containerFlags
	inPlace                                                                                  string
	stepLimit                                                                                int
	stepLimitSet                                                                             bool
}

func runCmd() *cobra.Command {
	var o runOptions
	c := &cobra.Command{
		Use:   "run --task DIR [--records FILE --instance ID] [--condition C] [--match M] --out DIR (--agent claude|codex|gemini|opencode [--model-url URL] [--model M] | -- AGENT ARGS...)",
		Short: "Run an agent on a task through the shim, verify, and write trajectory.jsonl and result.json",
		RunE: func(c *cobra.Command, args []string) error {
			if o.ctr.wanted() {
				return o.ctr.run(c, o.taskDir, o.out, args)
			}
			o.args = args
			o.stepLimitSet = c.Flags().Changed("step-limit")
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c)
	c.MarkFlagRequired("task")
	c.MarkFlagRequired("out")
	return c
}

// bind adds the flags to c: some are shared with eval through helpers
// that take the command.
func (o *runOptions) bind(c *cobra.Command) {
	c.Flags().StringVar(&o.taskDir, "task", "", "Harbor task directory or local task file")
	c.Flags().StringVar(&o.records, "records", "", "SWE-Touch dataset-record-v1 JSONL binding Counter-Edits to the task")
	c.Flags().StringVar(&o.instance, "instance", "", "record instance id (default: the task's name)")
	c.Flags().StringVar(&o.condition, "condition", "", "vanilla, counter-edit, co-edit, message-only or code-only (default: counter-edit with --records, vanilla without; any but vanilla needs --records)")
	c.Flags().StringVar(&o.match, "match", "reference", "reference or precise")
	scheduleFlags(c, &o.schedule, &o.scheduleSteps, &o.after)
	o.bench.bind(c.Flags())
	userModelFlags(c, &o.userURL, &o.userModel)
	personasFlag(c, &o.personas)
	o.roles.add(c)
	o.upstream.add(c)
	c.Flags().StringVar(&o.out, "out", "", "output directory")
	o.budget = budgetFlag(c)
	c.Flags().BoolVar(&o.noSandbox, "no-sandbox", false, "run the agent and the tests without isolation (result.json says so)")
	c.Flags().StringSliceVar(&o.visible, "visible", nil, "a host path the sandboxed agent may read (repeat): its own files outside the system directories")
	c.Flags().BoolVar(&o.keep, "keep", false, "keep the workspace (its path is in result.json)")
	c.Flags().StringVar(&o.inPlace, "in-place", "", "work over this checkout rather than a copy of the task's repository (nothing copied in; final.diff against the checkout as the run found it; a container's /testbed, a harness's workspace)")
	o.ctr.add(c)
	stepLimitFlag(c, &o.stepLimit)
	c.Flags().BoolVar(&o.verbose, "verbose", false, "print the agent's own output (its JSON event stream) instead of what it did, an action a line; agent.log keeps it either way")
	c.Flags().StringVar(&o.agent, "agent", "", "a registered agent to run unmodified: "+agentList())
	c.Flags().StringVar(&o.mcpFile, "mcp", "", `MCP servers for the --agent preset, each behind the relay: {"mcpServers": {NAME: {"command", "args", "env"}}}, "{workspace}" in args`)
	c.Flags().StringArrayVar(&o.agentArgs, "agent-arg", nil, "an extra flag for the --agent preset's command line (repeat)")
	c.Flags().StringVar(&o.agentName, "agent-name", "", "the agent's name in result.json, which score groups by (default: --agent)")
	c.Flags().StringVar(&o.modelURL, "model-url", "", "the model endpoint the agent talks to (e.g. swetouch model serve): the one address its sandbox reaches")
	networkFlag(c, &o.network)
	agentTimeoutFlag(c, &o.agentTimeout)
	o.limits.add(c)
	c.Flags().StringVar(&o.modelName, "model", "", "the model name the agent asks for")
}

func (o *runOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	t, err := task.Load(o.taskDir)
	if err != nil {
		return badInput("--task: %v", err)
	}
	cfg := run.Config{Task: t, Agent: agents.Command(o.args...), Out: o.out, KeepWorkspace: o.keep, InPlace: o.inPlace}
	// the agent's own output goes to agent.log; the user sees
	// what it did, an action a line, or with --verbose its output
	prog := newProgress(stderr)
	if o.verbose {
		cfg.Stdout, cfg.Stderr = stdout, stderr
	} else {
		cfg.OnEvent = prog.event
	}
	if err := o.record(&cfg); err != nil {
		return err
	}
	o.benchmarkSteps(cfg.Record)
	preset, cleanup, err := o.startAgent(&cfg)
	if err != nil {
		return err
	}
	defer cleanup()
	if o.agentName != "" {
		cfg.Agent.Name = o.agentName
	}
	if err := o.user(&cfg); err != nil {
		return err
	}
	// a preset with no binary of its own (the scripted agents, which
	// swetouch runs itself) talks to no provider
	if err := o.isolation(&cfg, preset != nil && preset.Bin != ""); err != nil {
		return err
	}
	if err := o.conversation(&cfg, preset); err != nil {
		return err
	}
	for _, p := range o.visible {
		abs, _ := filepath.Abs(p)
		cfg.Visible = append(cfg.Visible, abs)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.Trial(ctx, cfg)
	prog.done()
	if err != nil && res == nil {
		return err
	}
	return o.report(stderr, res, err)
}

// startAgent sets cfg's agent: the --agent preset, started with its
// model (recorded with --model-upstream), or the command after --.
// preset is nil for the latter; cleanup removes what it made.
func (o *runOptions) startAgent(cfg *run.Config) (preset *agents.Agent, cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	switch {
	case o.agent != "":
	case len(o.args) == 0:
		return nil, nil, badInput("give --agent NAME, or the agent's command after --")
	case o.upstream.url != "":
		return nil, nil, badInput("--model-upstream is for a preset (--agent NAME), whose endpoint swetouch sets")
	case len(o.agentArgs) > 0 || o.mcpFile != "":
		return nil, nil, badInput("--agent-arg and --mcp are for a preset (--agent NAME); after --, the command line and its configuration are the agent's own")
	case o.stepLimitSet && o.stepLimit > 0:
		return nil, nil, badInput("--step-limit counts a preset's model calls (--agent NAME), whose endpoint swetouch sets; a command after -- reaches its model where it chooses")
	default:
		// a paper's budget (benchmarkSteps) cannot be counted either: none
		return nil, cleanup, nil
	}
	var servers []agents.MCPServer
	if o.mcpFile != "" {
		if servers, err = agents.LoadMCPServers(o.mcpFile); err != nil {
			return nil, nil, badInput("--mcp: %v", err)
		}
	}
	p, bin, err := agents.Find(o.agent)
	if err != nil {
		return nil, nil, badInput("--agent: %v", err)
	}
	if o.upstream.url != "" && o.modelURL != "" {
		return nil, nil, badInput("give --model-url (an endpoint the agent talks to) or --model-upstream (its provider, recorded), not both")
	}
	if o.modelURL != "" && p.Bin != "" {
		url := o.modelURL
		cfg.Probe = func(ctx context.Context) error { return agents.ProbeModel(ctx, url, agents.ProbeTimeout) }
	}
	if o.stepLimit > 0 && o.upstream.url == "" && o.modelURL != "" {
		// a step limit is counted where swetouch sees the calls: a
		// recorder in front of the endpoint
		o.upstream.url, o.modelURL = o.modelURL, ""
	}
	cfg.Steps = run.NewStepBudget(o.stepLimit)
	rec, err := o.upstream.start(o.out, cfg.Steps)
	if err != nil {
		return nil, nil, err
	}
	if rec != nil {
		cleanups = append(cleanups, func() { rec.Close() })
		// the preset and everything after talk to the recorder
		o.modelURL, cfg.ModelUsage = rec.URL(), rec.Usage
	}
	exe, err := os.Executable()
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	scratch, err := os.MkdirTemp("", "swetouch-agent-")
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(scratch) })
	t := cfg.Task
	plans := filepath.Join(filepath.Dir(filepath.Dir(filepath.Clean(t.Dir))), "agents") // a scripted agent's, beside the tasks
	if cfg.Agent, err = p.Start(agents.Launch{Bin: bin, ModelURL: o.modelURL, Model: o.modelName, Swetouch: exe, Scratch: scratch, Args: o.agentArgs, MCP: servers, Task: t.Name, Plans: plans, StepLimit: o.stepLimit}); err != nil {
		cleanup()
		return nil, nil, err
	}
	cfg.Agent.Argv, cfg.Scratch = append(cfg.Agent.Argv, o.args...), []string{scratch}
	return p, cleanup, nil
}

// record reads the record binding --records to the task (bad input
// named by its flag), before the agent starts: its benchmark sets the
// step budget the agent's recorder and its own flag are made with.
func (o *runOptions) record(cfg *run.Config) error {
	if o.records == "" {
		return nil
	}
	recs, err := task.LoadRecords(o.records)
	if err != nil {
		return badInput("%v", err)
	}
	if cfg.Record, err = task.Find(recs, orDefault(o.instance, cfg.Task.Name)); err != nil {
		return badInput("--records %s: %v", o.records, err)
	}
	abs, _ := filepath.Abs(o.records)
	cfg.Hidden = append(cfg.Hidden, abs)
	return nil
}

// benchmarkSteps sets the step limit to the paper's budget for the
// record's benchmark where --step-limit was not given.
func (o *runOptions) benchmarkSteps(rec *task.Record) {
	o.stepLimit = stepLimitOf(o.stepLimit, o.stepLimitSet, rec)
}

// user sets who the user is: the record's Counter-Edits (record read it), the
// condition, the match, the schedule and the model that writes the
// messages; bad input named by its flag.
func (o *runOptions) user(cfg *run.Config) error {
	var err error
	condition := o.condition
	if condition == "" {
		// the default names what will run: a record's Counter-Edits,
		// or, with none, vanilla under its own name
		condition = string(policy.Vanilla)
		if cfg.Record != nil {
			condition = string(policy.CounterEdit)
		}
	}
	if cfg.Condition, err = policy.ParseCondition(condition); err != nil {
		return badInput("--condition: %v", err)
	}
	if cfg.Match, err = policy.ParseMatch(o.match); err != nil {
		return badInput("--match: %v", err)
	}
	if cfg.Delivery, cfg.CoEditTrigger, err = o.bench.rules(cfg.Match); err != nil {
		return err
	}
	if cfg.Record == nil && cfg.Condition.NeedsRecord() {
		return badInput("--condition %s needs --records: its Counter-Edits come from a record, and without one it would run vanilla under its name", condition)
	}
	if cfg.Schedule, err = user.ParseSchedule(o.schedule, o.scheduleSteps, o.after); err != nil {
		return badInput("--schedule: %v", err)
	}
	if cfg.Schedule.Kind != "" && cfg.Record == nil {
		return badInput("--schedule %s needs --records", o.schedule)
	}
	if cfg.UserModel, err = userModelFlag(o.userURL, o.userModel); err != nil {
		return err
	}
	return nil
}

// isolation sets the verifier's budget, the sandbox, its limits and its
// network, the model endpoint and the agent's time.
func (o *runOptions) isolation(cfg *run.Config, preset bool) error {
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
		if cfg.HostNetwork, err = hostNetwork(o.network, o.modelURL, preset, false); err != nil {
			return err
		}
	}
	return nil
}

// conversation sets a multi-turn task's conversation: its personas, its
// judge and reviewer, its admission (UserSWE U5).
func (o *runOptions) conversation(cfg *run.Config, preset *agents.Agent) error {
	m, err := personasModel(o.personas)
	if err != nil {
		return err
	}
	models, err := o.roles.models(cfg.UserModel)
	if err != nil {
		return err
	}
	t := cfg.Task
	var fixed []conversation.LoadOption
	if cfg.Condition == policy.ClearCorrect {
		fixed = append(fixed, conversation.WithPersona(conversation.ClearCorrectPersona))
	}
	if cfg.Conversation, err = conversationFor(t, m, models, preset, cfg.Sandbox, fixed...); err != nil {
		return err
	}
	if cfg.Conversation == nil && cfg.Condition == policy.ClearCorrect {
		return badInput("--condition clear-correct: %s is a single-turn task, with no conversation's user to make clear", t.Dir)
	}
	at := t
	if t.Repo == "" && o.inPlace != "" {
		// a task whose code is its image's (a container's /testbed) is
		// admitted over that checkout, as the agent will find it
		c := *t
		c.Repo, _ = filepath.Abs(o.inPlace)
		at = &c
	}
	if err := admitted(cfg.Conversation != nil, at, cfg.Sandbox, cfg.Verify); err != nil {
		return err
	}
	if m != nil && cfg.Conversation == nil {
		return badInput("--personas: %s has no %s: it is not a multi-turn task", t.Dir, conversation.File)
	}
	return nil
}

// report says what the trial came to, and maps how it ended to the exit
// code: 1 when the agent could not start, 130 when interrupted.
func (o *runOptions) report(stderr io.Writer, res *result.Run, err error) error {
	if res.AgentExit != 0 && !o.verbose {
		fmt.Fprintf(stderr, "swetouch: the agent exited %d; what it printed is in %s\n", res.AgentExit, filepath.Join(o.out, run.AgentLog))
	}
	verdict := result.ShowResolved(res.Resolved)
	if res.Resolved == nil && res.Reason != "" {
		verdict += " (" + res.Reason + ")"
	}
	fmt.Fprintf(stderr, "swetouch: resolved=%s condition=%s steps=%d interventions applied=%d; %s\n",
		verdict, res.Condition, res.Steps, res.Applied, filepath.Join(o.out, "result.json"))
	switch {
	case errors.Is(err, run.ErrAgentStart), errors.Is(err, run.ErrSetup):
		return exitError{1}
	case err != nil:
		return exitError{130}
	}
	return nil
}

// scheduleFlags are the user's schedule: --schedule, with --steps for
// fraction (eval takes it from the paired vanilla run) and --after.
func scheduleFlags(c *cobra.Command, schedule *string, steps, after *int) {
	c.Flags().StringVar(schedule, "schedule", "region", "when the user's rounds come: region (the record's triggers), fraction (round i of K at step ⌈i·S/(K+1)⌉ of a reference run of S steps) or after (the first at step --after, later ones on new edits)")
	c.Flags().IntVar(steps, "steps", 0, "with --schedule fraction: the reference run's step count S")
	c.Flags().IntVar(after, "after", 0, "with --schedule after: the step of the first round")
}

// userModelFlags name the model that writes the user's messages.
func userModelFlags(c *cobra.Command, url, model *string) {
	c.Flags().StringVar(url, "user-model-url", "", "an OpenAI-compatible chat-completions base URL (…/v1) whose model writes the user's messages from what the agent did; the key is $SWETOUCH_USER_API_KEY")
	c.Flags().StringVar(model, "user-model", "", "with --user-model-url: the model's name")
}

// userModelFlag is the user's writer the flags name (nil: none).
func userModelFlag(url, model string) (user.Writer, error) {
	return chatFlag("--user-model", url, model, "SWETOUCH_USER_API_KEY")
}

// chatFlag is the model a pair of flags (NAME-url and NAME) names, its
// key from $keyEnv (nil: none named).
func chatFlag(name, url, model, keyEnv string) (user.Writer, error) {
	if url == "" {
		if model != "" {
			return nil, badInput("%s needs %s-url", name, name)
		}
		return nil, nil
	}
	if u, err := neturl.Parse(url); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, badInput("%s-url: want an http(s) URL such as http://127.0.0.1:8000/v1, got %q", name, url)
	}
	if model == "" {
		return nil, badInput("%s-url needs %s NAME", name, name)
	}
	return &user.Chat{URL: url, Model: model, Key: os.Getenv(keyEnv)}, nil
}

// sandboxFlag is the sandbox runs get: bwrap unless --no-sandbox (the
// zero Setup); an error saying how to get it, or to opt out, when it
// cannot run here.
// SWETOUCH_SANDBOX=none is the same as --no-sandbox, for a harness that
// isolates swetouch itself (a container of its own) and for test suites
// on a machine where bwrap cannot run; results say "none" all the same.
func sandboxFlag(none bool) (sandbox.Setup, error) {
	if none || os.Getenv("SWETOUCH_SANDBOX") == sandbox.None {
		return sandbox.Setup{}, nil
	}
	// the limits by default; where they cannot be set, said once
	r := &sandbox.Runner{Limits: sandbox.DefaultLimits, Notice: func(s string) { fmt.Fprintln(os.Stderr, "swetouch: "+s) }}
	if err := r.Check(); err != nil {
		return sandbox.Setup{}, badInput("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return sandbox.Setup{}, err
	}
	return sandboxGo(r, exe)
}

func agentCmd() *cobra.Command {
	c := &cobra.Command{Use: "agent", Short: "Built-in agents"}
	var plan, behaviour, sess, message string
	script := &cobra.Command{
		Use:   "script --plan FILE --behaviour naive|careful [--session ID --message TEXT]",
		Short: "A deterministic agent that works only through bash: reads, edits, runs tests",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			p, err := scripted.LoadPlan(plan)
			if err != nil {
				return badInput("--plan: %v", err)
			}
			if behaviour != scripted.Naive && behaviour != scripted.Careful {
				return badInput("--behaviour: want naive or careful, got %q", behaviour)
			}
			if len(p.Turns) > 0 {
				return scripted.RunTurn(c.Context(), p, behaviour, sess, message, c.OutOrStdout())
			}
			return scripted.RunScripted(c.Context(), p, behaviour, c.OutOrStdout())
		},
	}
	script.Flags().StringVar(&sess, "session", "", "a conversation plan's session to resume (the id its last turn reported)")
	script.Flags().StringVar(&message, "message", "", "what the user said since the last turn (a conversation plan)")
	script.Flags().StringVar(&plan, "plan", "", "the agent's plan (JSON)")
	script.Flags().StringVar(&behaviour, "behaviour", scripted.Careful, "naive or careful")
	script.MarkFlagRequired("plan")
	c.AddCommand(script, agentReplayCmd())
	return c
}

func demoCmd() *cobra.Command {
	var dir, reportDir, userURL, userModel string
	var noSandbox bool
	c := &cobra.Command{
		Use:   "demo [--examples DIR] [--report DIR] [--no-sandbox] [--user-model-url URL --user-model NAME]",
		Short: "Run the example tasks under Vanilla and Counter-Edit, and the example conversations, with both scripted agents (offline)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg := demo.Config{Examples: dir, Report: reportDir, Swetouch: exe, Log: c.ErrOrStderr()}
			if cfg.UserModel, err = userModelFlag(userURL, userModel); err != nil {
				return err
			}
			// the demo runs on a fresh machine: without bwrap it runs
			// unsandboxed and says so, where run and eval refuse
			if cfg.Sandbox, err = sandboxFlag(noSandbox); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "swetouch demo: running without a sandbox: %v\n", err)
			}
			res, err := demo.Run(ctx, cfg)
			if err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout())
			res.WriteTables(c.OutOrStdout())
			fmt.Fprintf(c.OutOrStdout(), "\nreport: %s\n", filepath.Join(reportDir, report.HTMLFile))
			return nil
		},
	}
	c.Flags().StringVar(&dir, "examples", "", "an examples folder (tasks/ and agents/) to run instead of the built-in ones")
	c.Flags().StringVar(&reportDir, "report", "swetouch-demo", "the report folder")
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run the agents and tests without isolation")
	userModelFlags(c, &userURL, &userModel)
	return c
}
