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

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/eval"
	"github.com/swetouch/swetouch/examples"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

func evalCmd() *cobra.Command {
	var tasksDir, records, conditions, out, plans, modelURL, modelName string
	var emit, image, swetouchImage, pvc, namespace, podSecurity, agentImage string
	var agentNames, agentArgs []string
	var mcpFile, schedule, userURL, userModel, personas string
	var roles roleFlags
	var upstream upstreamFlags
	var scheduleSteps, after int
	var runs, concurrency, retryNull int
	var noSandbox bool
	var budget func() ([]task.VerifyOption, error)
	var network string
	var agentTimeout time.Duration
	var limits limitFlags
	c := &cobra.Command{
		Use:   "eval --tasks DIR [--records FILE] --agent NAME... [--conditions vanilla,counter-edit] [--runs N] [--concurrency C] --out DIR",
		Short: "Paired trials: every task under every condition with every agent, N runs; resumable",
		Long: "Agents: naive or careful (the scripted agent, with plans from --plans, default the tasks'\n" +
			"sibling agents/ folder), or claude, codex, gemini, opencode (with --model-url). Records come\n" +
			"from --records or each task's records.jsonl. Finished trials are skipped when eval runs\n" +
			"again; an interrupted eval leaves every finished trial intact. Score with `swetouch score OUT`.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			entries, err := os.ReadDir(tasksDir)
			if err != nil {
				return badInput("--tasks: %v", err)
			}
			cfg := eval.Config{Runs: runs, Concurrency: concurrency, RetryNull: retryNull, Out: out, Progress: c.ErrOrStderr(), Bar: isTerminal(c.ErrOrStderr())}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				t, err := task.Load(filepath.Join(tasksDir, e.Name()))
				if err != nil {
					return badInput("--tasks: %v", err)
				}
				cfg.Tasks = append(cfg.Tasks, t)
			}
			if len(cfg.Tasks) == 0 {
				return badInput("--tasks: no tasks in %s", tasksDir)
			}
			for _, s := range strings.Split(conditions, ",") {
				cond, err := policy.ParseCondition(strings.TrimSpace(s))
				if err != nil {
					return badInput("--conditions: %v", err)
				}
				cfg.Conditions = append(cfg.Conditions, cond)
			}
			// the fraction schedule's S is each trial's paired vanilla
			// run's step count, set per trial
			if cfg.Schedule, err = user.ParseSchedule(schedule, max(scheduleSteps, 1), after); err != nil {
				return badInput("--schedule: %v", err)
			}
			if cfg.Schedule.Kind == "fraction" {
				if c.Flags().Changed("steps") {
					return badInput("--steps: eval takes each trial's S from its paired vanilla run")
				}
				if !slices.Contains(cfg.Conditions, policy.Vanilla) {
					return badInput("--schedule fraction needs the vanilla condition: S is each trial's paired vanilla run's step count")
				}
			}
			if cfg.UserModel, err = userModelFlag(userURL, userModel); err != nil {
				return err
			}
			var shared []*task.Record
			if records != "" {
				if shared, err = task.LoadRecords(records); err != nil {
					return badInput("%v", err)
				}
			}
			cfg.Records = func(t *task.Task) (*task.Record, error) {
				recs := shared
				if recs == nil {
					p := filepath.Join(t.Dir, "records.jsonl")
					if _, err := os.Stat(p); err != nil {
						return nil, nil // vanilla only
					}
					if recs, err = task.LoadRecords(p); err != nil {
						return nil, err
					}
				}
				r, err := task.Find(recs, t.Name)
				if err != nil {
					from := records
					if shared == nil {
						from = filepath.Join(t.Dir, "records.jsonl")
					}
					return nil, fmt.Errorf("%s: %w", from, err)
				}
				return r, nil
			}
			m, err := personasModel(personas)
			if err != nil {
				return err
			}
			// each task's conversation package is checked before any
			// trial runs; a trial's user is made for its sandbox
			models, err := roles.models(cfg.UserModel)
			if err != nil {
				return err
			}
			for _, t := range cfg.Tasks {
				if _, err := conversationFor(t, m, models, nil, sandbox.Setup{}); err != nil {
					return err
				}
			}
			if upstream.url != "" {
				if modelURL != "" {
					return badInput("give --model-url (an endpoint the agents talk to) or --model-upstream (their provider, recorded), not both")
				}
				if _, err := upstream.check(); err != nil {
					return err
				}
				cfg.Upstream = func(dir string) (eval.Recorder, error) {
					r, err := upstream.start(dir)
					if err != nil {
						return nil, err
					}
					return r, nil
				}
			} else if upstream.prices != "" {
				return badInput("--prices needs --model-upstream")
			}
			cfg.Conversation = func(t *task.Task) (*session.Conversation, error) {
				return conversationFor(t, m, models, nil, cfg.Sandbox)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if plans == "" {
				plans = filepath.Join(filepath.Dir(filepath.Clean(tasksDir)), "agents")
			}
			if plans, err = filepath.Abs(plans); err != nil {
				return err
			}
			var servers []agents.MCPServer
			if mcpFile != "" {
				if servers, err = agents.LoadMCPServers(mcpFile); err != nil {
					return badInput("--mcp: %v", err)
				}
			}
			for _, name := range agentNames {
				a, err := evalAgent(name, plans, exe, modelURL, modelName, agentArgs, servers)
				if err != nil && emit != "" && !errors.Is(err, agents.ErrNoPreset) {
					err = nil // the agent runs in the trial's container, not here
				}
				if err != nil {
					return badInput("--agent: %v", err)
				}
				if emit == "" && modelURL == "" && upstream.url == "" {
					if err := loggedIn(name); err != nil {
						return err
					}
				}
				cfg.Agents = append(cfg.Agents, a)
			}
			if emit != "" && schedule == "fraction" {
				return badInput("--schedule fraction: its steps come from each trial's paired vanilla run, which an emitted job does not wait for; give run's --schedule after --after N, or run eval here")
			}
			if emit != "" {
				agentDir := ""
				if agentImage != "" {
					agentDir = eval.EmitAgentDir
				}
				return emitJobs(c, cfg, emit, eval.EmitConfig{Image: image, SwetouchImage: swetouchImage, PVC: pvc, Namespace: namespace,
					PodSecurity: podSecurity, AgentImage: agentImage,
					Command: eval.TrialArgs{SharedRecords: records != "", ModelURL: modelURL, Model: modelName, Flags: runFlagsOf(c), AgentDir: agentDir,
						Scripted: func(a string) bool { return a == examples.Naive || a == examples.Careful }}.Command})
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
				preset := false
				for _, n := range agentNames {
					_, _, err := agents.PresetFor(n)
					preset = preset || !errors.Is(err, agents.ErrNoPreset)
				}
				if cfg.HostNetwork, err = hostNetwork(network, modelURL, preset && upstream.url == "", upstream.url != ""); err != nil {
					return err
				}
			}
			if records != "" {
				abs, _ := filepath.Abs(records)
				cfg.Hidden = append(cfg.Hidden, abs)
			}
			// the packages' test ids against their tests' own listing,
			// sandboxed as the trials' tests run
			for _, t := range cfg.Tasks {
				if _, err := conversationFor(t, m, models, nil, cfg.Sandbox, listedIDs(t, cfg.Sandbox, cfg.Verify)); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, err := eval.Run(ctx, cfg)
			if ctx.Err() != nil {
				fmt.Fprintf(c.ErrOrStderr(), "swetouch eval: interrupted after %d finished trials (kept in %s); the same command again runs only the trials not yet done\n", n, out)
				return exitError{130}
			}
			fmt.Fprintf(c.ErrOrStderr(), "swetouch eval: ran %d trials; score with: swetouch score %s\n", n, out)
			return err
		},
	}
	c.Flags().StringVar(&tasksDir, "tasks", "", "a folder of tasks")
	c.Flags().StringVar(&records, "records", "", "dataset-record-v1 JSONL (default: each task's records.jsonl)")
	c.Flags().StringSliceVar(&agentNames, "agent", nil, "agents to run (repeat): naive, careful, claude, codex, gemini, opencode")
	scheduleFlags(c, &schedule, &scheduleSteps, &after)
	userModelFlags(c, &userURL, &userModel)
	personasFlag(c, &personas)
	roles.add(c)
	upstream.add(c)
	c.Flags().StringVar(&conditions, "conditions", "vanilla,counter-edit", "comma-separated conditions")
	c.Flags().IntVar(&runs, "runs", 1, "runs of every trial")
	c.Flags().IntVar(&concurrency, "concurrency", 2, "trials at a time")
	c.Flags().IntVar(&retryNull, "retry-null", 1, "times a trial that ends with no verdict (the machine's doing, never the agent's) runs again before its null stands")
	c.Flags().StringVar(&out, "out", "", "the results folder")
	c.Flags().StringVar(&plans, "plans", "", "the scripted agent's plans (default: the tasks folder's sibling agents/)")
	c.Flags().StringVar(&modelURL, "model-url", "", "the model endpoint for real agents: the one address their sandboxes reach")
	networkFlag(c, &network)
	agentTimeoutFlag(c, &agentTimeout)
	limits.add(c)
	c.Flags().StringVar(&modelName, "model", "", "the model name for real agents")
	c.Flags().StringVar(&mcpFile, "mcp", "", `MCP servers for every real agent, each behind the relay: {"mcpServers": {NAME: {"command", "args", "env"}}}`)
	c.Flags().StringArrayVar(&agentArgs, "agent-arg", nil, "an extra flag for every real agent's command line (repeat)")
	budget = budgetFlag(c)
	c.Flags().BoolVar(&noSandbox, "no-sandbox", false, "run agents and tests without isolation (results say so)")
	c.Flags().StringVar(&emit, "emit", "", "write a job per trial for an orchestrator instead of running: k8s")
	c.Flags().StringVar(&image, "image", "", "with --emit: the trial's container image: {task} is the task's name, {instance_id} the name as SWE-bench's images spell it (lower case, __ as _1776_: swebench/sweb.eval.x86_64.{instance_id}:latest)")
	c.Flags().StringVar(&podSecurity, "pod-security", eval.PodPrivileged, "with --emit: what the trial's container gets for bwrap: privileged, or userns (hostUsers: false with an unmasked /proc; containerd 2 or CRI-O); docs/scale.md")
	c.Flags().StringVar(&agentImage, "agent-image", "", "with --emit: an image holding the agent's install at /agent (and cp), copied into each trial's pod at "+eval.EmitAgentDir+", its bin/ on the PATH")
	c.Flags().StringVar(&swetouchImage, "swetouch-image", "", "with --emit: an image holding the static swetouch binary at /swetouch")
	c.Flags().StringVar(&pvc, "pvc", "", "with --emit: the volume claim holding tasks/, agents/, records.jsonl and results/")
	c.Flags().StringVar(&namespace, "namespace", "", "with --emit: the jobs' namespace")
	c.MarkFlagRequired("tasks")
	c.MarkFlagRequired("agent")
	c.MarkFlagRequired("out")
	return c
}

// evalAgent turns an agent name into how eval starts it on a task.
func evalAgent(name, plans, exe, modelURL, modelName string, agentArgs []string, servers []agents.MCPServer) (eval.Agent, error) {
	if name == examples.Naive || name == examples.Careful {
		plan := func(t *task.Task) string { return filepath.Join(plans, t.Name+".json") }
		return eval.Agent{Name: name, Command: func(t *task.Task, scratch, modelURL string) ([]string, []string, error) {
			// a conversation's turns resume it by the line protocol
			return []string{exe, "agent", "script", "--plan", plan(t), "--behaviour", name, "--session", "{session}", "--message", "{instruction}"}, nil, nil
		}, Visible: func(t *task.Task) []string { return []string{plan(t)} }}, nil
	}
	p, bin, err := agents.PresetFor(name)
	if errors.Is(err, agents.ErrNoPreset) {
		return eval.Agent{}, fmt.Errorf("%w for agent %q (have %s, %s, %s)", agents.ErrNoPreset, name, examples.Naive, examples.Careful, strings.Join(agents.PresetNames(), ", "))
	}
	if err != nil {
		return eval.Agent{}, err
	}
	var visible []string
	for _, s := range servers {
		visible = append(visible, s.Install()...)
	}
	var turns *session.Conversation
	if p.Turns != nil {
		turns = &session.Conversation{Session: p.Turns.Session, Reply: p.Turns.Reply, Resume: p.Turns.Resume}
	}
	var probe func(context.Context) error
	if modelURL != "" {
		probe = func(ctx context.Context) error { return agents.ProbeModel(ctx, modelURL, agents.ProbeTimeout) }
	}
	return eval.Agent{Name: name, Observe: p.Observe, Own: p.Own, Unreached: p.Unreached, Turns: turns, Probe: probe, Command: func(t *task.Task, scratch, trialURL string) ([]string, []string, error) {
		url := modelURL
		if trialURL != "" {
			url = trialURL // the trial's recorder, in front of --model-upstream
		}
		st, err := p.Start(agents.Launch{Bin: bin, ModelURL: url, Model: modelName, Swetouch: exe, Scratch: scratch, Args: agentArgs, MCP: servers})
		return st.Argv, st.Env, err
	}, Visible: func(*task.Task) []string { return visible }}, nil
}

// loggedIn refuses a real agent given no endpoint that cannot find a
// login of its user's: each of its trials would start, say "Not logged
// in" and end null, the whole eval long.
func loggedIn(name string) error {
	p, _, err := agents.PresetFor(name)
	if err != nil {
		return nil // a scripted agent, or none: said elsewhere
	}
	home, _ := os.UserHomeDir()
	if ok, looked := p.Login(home, os.Getenv); !ok {
		return badInput("--agent %s: no --model-url or --model-upstream, and no login of its own found (looked for %s): every trial would end without reaching a model", name, looked)
	}
	return nil
}

// emitJobs writes the trials not yet done as jobs under OUT/jobs.
func emitJobs(c *cobra.Command, cfg eval.Config, kind string, ec eval.EmitConfig) error {
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
	fmt.Fprintf(c.ErrOrStderr(), "swetouch eval: %d jobs in %s; kubectl apply -k %s, then copy results/ from the volume and run: swetouch score results/\n", len(jobs), dir, dir)
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
