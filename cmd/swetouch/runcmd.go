package main

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/demo"

	"github.com/swetouch/swetouch/agents/scripted"
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

func runCmd() *cobra.Command {
	var taskDir, records, instance, condition, match, out, agent, agentName, modelURL, modelName string
	var keep, noSandbox, verbose bool
	var budget func() ([]task.VerifyOption, error)
	var network string
	var agentTimeout time.Duration
	var limits limitFlags
	var mcpFile, schedule, userURL, userModel, personas string
	var roles roleFlags
	var upstream upstreamFlags
	var scheduleSteps, after int
	var visible, agentArgs []string
	var ctr containerFlags
	var inPlace string
	c := &cobra.Command{
		Use:   "run --task DIR [--records FILE --instance ID] [--condition C] [--match M] --out DIR (--agent claude|codex|gemini|opencode [--model-url URL] [--model M] | -- AGENT ARGS...)",
		Short: "Run an agent on a task through the shim, verify, and write trajectory.jsonl and result.json",
		RunE: func(c *cobra.Command, args []string) error {
			if ctr.wanted() {
				return ctr.run(c, taskDir, out, args)
			}
			t, err := task.Load(taskDir)
			if err != nil {
				return badInput("--task: %v", err)
			}
			cfg := run.Config{Task: t, Agent: agents.Command(args...), Out: out, KeepWorkspace: keep, InPlace: inPlace}
			// the agent's own output goes to agent.log; the user sees
			// what it did, an action a line, or with --verbose its output
			prog := newProgress(c.ErrOrStderr())
			if verbose {
				cfg.Stdout, cfg.Stderr = c.OutOrStdout(), c.ErrOrStderr()
			} else {
				cfg.OnEvent = prog.event
			}
			var preset *agents.Agent
			switch {
			case agent != "":
				var servers []agents.MCPServer
				if mcpFile != "" {
					if servers, err = agents.LoadMCPServers(mcpFile); err != nil {
						return badInput("--mcp: %v", err)
					}
				}
				p, bin, err := agents.Find(agent)
				if err != nil {
					return badInput("--agent: %v", err)
				}
				preset = p
				if upstream.url != "" && modelURL != "" {
					return badInput("give --model-url (an endpoint the agent talks to) or --model-upstream (its provider, recorded), not both")
				}
				if modelURL != "" && p.Bin != "" {
					url := modelURL
					cfg.Probe = func(ctx context.Context) error { return agents.ProbeModel(ctx, url, agents.ProbeTimeout) }
				}
				rec, err := upstream.start(out)
				if err != nil {
					return err
				}
				if rec != nil {
					defer rec.Close()
					modelURL, cfg.ModelUsage = rec.URL(), rec.Usage
				}
				exe, err := os.Executable()
				if err != nil {
					return err
				}
				scratch, err := os.MkdirTemp("", "swetouch-agent-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(scratch)
				plans := filepath.Join(filepath.Dir(filepath.Dir(filepath.Clean(t.Dir))), "agents") // a scripted agent's, beside the tasks
				if cfg.Agent, err = p.Start(agents.Launch{Bin: bin, ModelURL: modelURL, Model: modelName, Swetouch: exe, Scratch: scratch, Args: agentArgs, MCP: servers, Task: t.Name, Plans: plans}); err != nil {
					return err
				}
				cfg.Agent.Argv, cfg.Scratch = append(cfg.Agent.Argv, args...), []string{scratch}
			case len(args) == 0:
				return badInput("give --agent NAME, or the agent's command after --")
			case upstream.url != "":
				return badInput("--model-upstream is for a preset (--agent NAME), whose endpoint swetouch sets")
			case len(agentArgs) > 0 || mcpFile != "":
				return badInput("--agent-arg and --mcp are for a preset (--agent NAME); after --, the command line and its configuration are the agent's own")
			}
			if agentName != "" {
				cfg.Agent.Name = agentName
			}
			if records != "" {
				recs, err := task.LoadRecords(records)
				if err != nil {
					return badInput("%v", err)
				}
				id := instance
				if id == "" {
					id = t.Name
				}
				if cfg.Record, err = task.Find(recs, id); err != nil {
					return badInput("--records %s: %v", records, err)
				}
				abs, _ := filepath.Abs(records)
				cfg.Hidden = append(cfg.Hidden, abs)
			}
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
			if cfg.Match, err = policy.ParseMatch(match); err != nil {
				return badInput("--match: %v", err)
			}
			if cfg.Record == nil && cfg.Condition.NeedsRecord() {
				return badInput("--condition %s needs --records: its Counter-Edits come from a record, and without one it would run vanilla under its name", condition)
			}
			if cfg.Schedule, err = user.ParseSchedule(schedule, scheduleSteps, after); err != nil {
				return badInput("--schedule: %v", err)
			}
			if cfg.Schedule.Kind != "" && cfg.Record == nil {
				return badInput("--schedule %s needs --records", schedule)
			}
			if cfg.UserModel, err = userModelFlag(userURL, userModel); err != nil {
				return err
			}
			if cfg.Verify, err = budget(); err != nil {
				return err
			}
			if cfg.Sandbox, err = sandboxFlag(noSandbox); err != nil {
				return err
			}
			cfg.ModelURL, cfg.AgentTimeout = modelURL, agentTimeout
			if err := limits.set(cfg.Sandbox.Runner); err != nil {
				return err
			}
			if cfg.Sandbox.Runner != nil {
				if cfg.HostNetwork, err = hostNetwork(network, modelURL, preset != nil, false); err != nil {
					return err
				}
			}
			m, err := personasModel(personas)
			if err != nil {
				return err
			}
			models, err := roles.models(cfg.UserModel)
			if err != nil {
				return err
			}
			if cfg.Conversation, err = conversationFor(t, m, models, preset, cfg.Sandbox, listedIDs(t, cfg.Sandbox, cfg.Verify)); err != nil {
				return err
			}
			if m != nil && cfg.Conversation == nil {
				return badInput("--personas: %s has no %s: it is not a multi-turn task", t.Dir, conversation.File)
			}
			for _, p := range visible {
				abs, _ := filepath.Abs(p)
				cfg.Visible = append(cfg.Visible, abs)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := run.Trial(ctx, cfg)
			prog.done()
			if err != nil && res == nil {
				return err
			}
			if res.AgentExit != 0 && !verbose {
				fmt.Fprintf(c.ErrOrStderr(), "swetouch: the agent exited %d; what it printed is in %s\n", res.AgentExit, filepath.Join(out, run.AgentLog))
			}
			verdict := result.ShowResolved(res.Resolved)
			if res.Resolved == nil && res.Reason != "" {
				verdict += " (" + res.Reason + ")"
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch: resolved=%s condition=%s steps=%d interventions applied=%d; %s\n",
				verdict, res.Condition, res.Steps, res.Applied, filepath.Join(out, "result.json"))
			switch {
			case errors.Is(err, run.ErrAgentStart), errors.Is(err, run.ErrSetup):
				return exitError{1}
			case err != nil:
				return exitError{130}
			}
			return nil
		},
	}
	c.Flags().StringVar(&taskDir, "task", "", "Harbor task directory or local task file")
	c.Flags().StringVar(&records, "records", "", "SWE-Touch dataset-record-v1 JSONL binding Counter-Edits to the task")
	c.Flags().StringVar(&instance, "instance", "", "record instance id (default: the task's name)")
	c.Flags().StringVar(&condition, "condition", "", "vanilla, counter-edit, co-edit, message-only or code-only (default: counter-edit with --records, vanilla without; any but vanilla needs --records)")
	c.Flags().StringVar(&match, "match", "reference", "reference or precise")
	scheduleFlags(c, &schedule, &scheduleSteps, &after)
	userModelFlags(c, &userURL, &userModel)
	personasFlag(c, &personas)
	roles.add(c)
	upstream.add(c)
	c.Flags().StringVar(&out, "out", "", "output directory")
	budget = budgetFlag(c)
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run the agent and the tests without isolation (result.json says so)")
	c.Flags().StringSliceVar(&visible, "visible", nil, "a host path the sandboxed agent may read (repeat): its own files outside the system directories")
	c.Flags().BoolVar(&keep, "keep", false, "keep the workspace (its path is in result.json)")
	c.Flags().StringVar(&inPlace, "in-place", "", "work over this checkout rather than a copy of the task's repository (nothing copied in; final.diff against the checkout as the run found it; a container's /testbed, a harness's workspace)")
	ctr.add(c)
	c.Flags().BoolVar(&verbose, "verbose", false, "print the agent's own output (its JSON event stream) instead of what it did, an action a line; agent.log keeps it either way")
	c.Flags().StringVar(&agent, "agent", "", "a registered agent to run unmodified: "+agentList())
	c.Flags().StringVar(&mcpFile, "mcp", "", `MCP servers for the --agent preset, each behind the relay: {"mcpServers": {NAME: {"command", "args", "env"}}}, "{workspace}" in args`)
	c.Flags().StringArrayVar(&agentArgs, "agent-arg", nil, "an extra flag for the --agent preset's command line (repeat)")
	c.Flags().StringVar(&agentName, "agent-name", "", "the agent's name in result.json, which score groups by (default: --agent)")
	c.Flags().StringVar(&modelURL, "model-url", "", "the model endpoint the agent talks to (e.g. swetouch model serve): the one address its sandbox reaches")
	networkFlag(c, &network)
	agentTimeoutFlag(c, &agentTimeout)
	limits.add(c)
	c.Flags().StringVar(&modelName, "model", "", "the model name the agent asks for")
	c.MarkFlagRequired("task")
	c.MarkFlagRequired("out")
	return c
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
