package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/trajectory"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// loadRecording reads a recorded session: our trajectory.jsonl, or a
// mini-swe-agent v1/v2 .traj.json, imported.
func loadRecording(path string) (*trajectory.Trajectory, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, badInput("%v", err)
	}
	var tr *trajectory.Trajectory
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`{"format"`)) {
		tr, err = trajectory.Read(bytes.NewReader(b), path)
	} else {
		tr, err = replay.ImportMiniSWEAgent(b, path, replay.ImportOptions{})
	}
	if err != nil {
		return nil, badInput("%v", err)
	}
	return tr, nil
}

// replayOptions is `swetouch replay`: its flags, and its run over them.
type replayOptions struct {
	recording string // the trajectory, the command's argument

	taskDir, records, instance, condition, match, out, whatIf string
	cassette, agent, modelName, userTape                      string
	check, strict, noSandbox                                  bool
	timeout                                                   time.Duration
	timeoutSet                                                bool // --timeout given: it overrides the recorded limit
}

func replayCmd() *cobra.Command {
	var o replayOptions
	c := &cobra.Command{
		Use:   "replay TRAJECTORY --task DIR [--records FILE] [--condition C] [--check] --out DIR",
		Short: "Re-drive a recorded session (ours or mini-swe-agent's) on a fresh workspace, under any condition",
		Long: "The recorded agent's commands run again in order through the shell shim and the hub; native\n" +
			"edits are re-applied from their recorded diffs, native reads reported again. A new trajectory,\n" +
			"result.json and final.diff are written to --out; each replayed event carries the recorded step\n" +
			"it re-drives (recorded_step). --check compares the replay with the recording action by action\n" +
			"(command, exit status, output, classification, interventions and messages, the final diff) and\n" +
			"lists every divergence, each classified: one that changes the workspace's course (the action\n" +
			"changed files and behaved differently, or read files that already differ) or one of the\n" +
			"environment (an `ls` of the container's egg-info, a tool not installed here). It exits 1 if\n" +
			"any changes the course; --strict exits 1 at any divergence. Nothing sleeps for recorded\n" +
			"latencies.\n\n" +
			"For a closed agent, --cassette FILE --agent NAME runs the real agent again against the model\n" +
			"answers the scripted model server recorded, so the same session happens again.\n\n" +
			"--what-if CONDITION (with --records) runs nothing: it lists where and when each intervention\n" +
			"would have fired on the recording and what the agent was doing then.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.recording, o.timeoutSet = args[0], c.Flags().Changed("timeout")
			return o.run(context.Background(), c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	o.bind(c.Flags())
	return c
}

func (o *replayOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.taskDir, "task", "", "the task whose repository the replay starts from")
	fs.StringVar(&o.records, "records", "", "dataset-record-v1 JSONL (for a condition other than vanilla, or --what-if)")
	fs.StringVar(&o.instance, "instance", "", "record instance id (default: the recording's task)")
	fs.StringVar(&o.condition, "condition", "", "the condition to replay under (default: the recording's)")
	fs.StringVar(&o.match, "match", "reference", "reference or precise")
	fs.StringVar(&o.out, "out", "", "where the replay's trajectory, result and final diff go")
	fs.BoolVar(&o.check, "check", false, "compare with the recording: list every divergence, classified; exit 1 if one changes the workspace's course")
	fs.BoolVar(&o.strict, "strict", false, "with --check: exit 1 at any divergence, the environment's too")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "bound on each replayed command (default: the limit it was recorded under, if the recording says, else 1m)")
	fs.StringVar(&o.whatIf, "what-if", "", "list where a condition's interventions would fire on the recording, and run nothing")
	fs.StringVar(&o.userTape, "user-cassette", "", "the user model's recorded calls (default: user-model.jsonl beside the trajectory, when there is one)")
	fs.StringVar(&o.cassette, "cassette", "", "re-run a real agent against this model cassette (with --agent)")
	fs.StringVar(&o.agent, "agent", "", "with --cassette: the registered agent that was recorded: "+agentList())
	fs.StringVar(&o.modelName, "model", "", "with --cassette: the model name the agent asks for")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "replay without isolation")
}

func (o *replayOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	rec, err := loadRecording(o.recording)
	if err != nil {
		return err
	}
	record, err := o.record(rec)
	if err != nil {
		return err
	}
	m, err := policy.ParseMatch(o.match)
	if err != nil {
		return badInput("--match: %v", err)
	}
	if o.whatIf != "" {
		return replayWhatIf(stdout, rec, record, o.whatIf, m)
	}
	cfg, exe, err := o.config(rec, record, m, stderr)
	if err != nil {
		return err
	}
	cleanup, err := o.replayer(&cfg, rec, exe)
	if err != nil {
		return err
	}
	defer cleanup()
	// a conversation replays turn by turn, its user as recorded
	if cfg.Conversation, err = conversationFor(cfg.Task, nil, replayModels(o.recording), nil, cfg.Sandbox); err != nil {
		return err
	}
	if cfg.Conversation != nil {
		if o.cassette != "" {
			return badInput("--cassette: a conversation replays from its trajectory, turn by turn")
		}
		cfg.Agent.Argv = append(cfg.Agent.Argv, "--turn", "{session}")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.Trial(ctx, cfg)
	if res != nil && res.Workspace != "" {
		defer os.RemoveAll(res.Workspace)
	}
	if err != nil {
		return err
	}
	return o.report(stdout, rec, cfg.Condition, res)
}

// record is the recording's record in --records (nil without one).
func (o *replayOptions) record(rec *trajectory.Trajectory) (*task.Record, error) {
	if o.records == "" {
		return nil, nil
	}
	recs, err := task.LoadRecords(o.records)
	if err != nil {
		return nil, badInput("%v", err)
	}
	record, err := task.Find(recs, orDefault(o.instance, rec.Header.Task))
	if err != nil {
		return nil, badInput("--instance: %v", err)
	}
	return record, nil
}

// config is the replay's trial, its agent not yet chosen, and this
// executable.
func (o *replayOptions) config(rec *trajectory.Trajectory, record *task.Record, m policy.Match, stderr io.Writer) (run.Config, string, error) {
	if o.taskDir == "" || o.out == "" {
		return run.Config{}, "", badInput("give --task and --out (or --what-if)")
	}
	t, err := task.Load(o.taskDir)
	if err != nil {
		return run.Config{}, "", badInput("--task: %v", err)
	}
	cond, err := policy.ParseCondition(orDefault(o.condition, orDefault(rec.Header.Condition, string(policy.Vanilla))))
	if err != nil {
		return run.Config{}, "", badInput("--condition: %v", err)
	}
	if record == nil && cond != policy.Vanilla {
		return run.Config{}, "", badInput("--condition %s needs --records", cond)
	}
	exe, err := os.Executable()
	if err != nil {
		return run.Config{}, "", err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return run.Config{}, "", err
	}
	cfg := run.Config{Task: t, Record: record, Condition: cond, Match: m, Out: o.out,
		KeepWorkspace: true, Stdout: io.Discard, Stderr: stderr}
	// sandboxed as the recording was, so what the agent sees (its
	// environment, its processes) is the same
	if cfg.Sandbox, err = sandboxFlag(o.noSandbox); err != nil {
		return run.Config{}, "", err
	}
	if o.records != "" {
		abs, _ := filepath.Abs(o.records)
		cfg.Hidden = append(cfg.Hidden, abs)
	}
	// the user's messages as the recording's model wrote them: its
	// run folder's recording, or the one named
	tapeFile := o.userTape
	if p := filepath.Join(filepath.Dir(o.recording), run.UserModelLog); tapeFile == "" && fileExists(p) {
		tapeFile = p
	}
	if tapeFile != "" {
		tape, err := user.LoadTape(tapeFile, "")
		if err != nil {
			return run.Config{}, "", badInput("--user-cassette: %v", err)
		}
		cfg.UserModel = tape
	}
	return cfg, exe, nil
}

// replayer sets cfg's agent: the real agent against --cassette, or
// swetouch's replaying agent over a copy of the recording; cleanup
// removes what it made.
func (o *replayOptions) replayer(cfg *run.Config, rec *trajectory.Trajectory, exe string) (cleanup func(), err error) {
	if o.cassette != "" {
		return replayAgent(cfg, o.cassette, o.agent, o.modelName, exe)
	}
	recorded, err := filepath.Abs(filepath.Join(o.out, "recorded.jsonl"))
	if err != nil {
		return nil, err
	}
	if err := trajectory.WriteFile(recorded, rec); err != nil {
		return nil, err
	}
	// the replaying agent reads its own copy: the output
	// folder is not for it to see
	own, err := os.MkdirTemp("", "swetouch-replay-")
	if err != nil {
		return nil, err
	}
	cleanup = func() { os.RemoveAll(own) }
	script := filepath.Join(own, "recorded.jsonl")
	if err := trajectory.WriteFile(script, rec); err != nil {
		cleanup()
		return nil, err
	}
	// each command under the limit it was recorded under, unless
	// --timeout says otherwise
	timeout := o.timeout
	if !o.timeoutSet && rec.Header.CommandTimeout > 0 {
		timeout = time.Duration(rec.Header.CommandTimeout * float64(time.Second))
	}
	cfg.Agent = agents.Command(exe, "agent", "replay", "--trajectory", script, "--root", rec.Header.Root, "--timeout", timeout.String())
	// it reports the recorded native reads to the hub, as the agent's hooks did
	cfg.Agent.Name, cfg.Agent.CallsBack = "replay", true
	return cleanup, nil
}

// report says what the replay came to, aligns its events with the
// recorded steps they re-drive, and with --check or --strict lists its
// divergences from the recording.
func (o *replayOptions) report(w io.Writer, rec *trajectory.Trajectory, cond policy.Condition, res *result.Run) error {
	trajFile := filepath.Join(o.out, "trajectory.jsonl")
	fmt.Fprintf(w, "replay: %d recorded actions, condition %s, resolved=%s, interventions applied %d; %s\n",
		len(replay.Actions(rec)), cond, result.ShowResolved(res.Resolved), res.Applied, trajFile)
	// the replay's events carry the recorded step they re-drive
	got, err := trajectory.ReadFile(trajFile)
	if err != nil {
		return err
	}
	if o.cassette == "" {
		replay.AlignSteps(rec, got)
		if err := trajectory.WriteFile(trajFile, got); err != nil {
			return err
		}
	}
	if !o.check && !o.strict {
		return nil
	}
	var final *string
	if b, err := os.ReadFile(filepath.Join(o.out, "final.diff")); err == nil {
		final = new(string(b))
	}
	ds := replay.CompareAll(rec, got, replay.RootMap{Root: rec.Header.Root, Workspace: res.Workspace}, final)
	return reportDivergences(w, ds, o.strict)
}

// reportDivergences lists every divergence with its class and a summary;
// the exit status is 1 when one changes the workspace's course (any, with
// strict).
func reportDivergences(w io.Writer, ds []replay.Divergence, strict bool) error {
	if len(ds) == 0 {
		fmt.Fprintln(w, "replay: identical to the recording (commands, exit statuses, outputs, classification, decisions)")
		return nil
	}
	course := 0
	for _, d := range ds {
		class := "environment"
		if d.Course {
			class, course = "course", course+1
		}
		fmt.Fprintf(w, "replay: divergence [%s: %s]: %v\n", class, d.Why, &d)
	}
	fmt.Fprintf(w, "replay: %d divergences: %d change the workspace's course, %d are the environment's\n", len(ds), course, len(ds)-course)
	if course > 0 || strict {
		return exitError{1}
	}
	return nil
}

// replayAgent sets cfg up to run a real agent against a model cassette
// served on a loopback port; stop shuts the server down.
func replayAgent(cfg *run.Config, cassette, agent, modelName, exe string) (stop func(), err error) {
	p, bin, err := agents.Find(agent)
	if err != nil {
		return nil, badInput("--agent: %v", err)
	}
	cas, err := modelserver.LoadCassette(cassette)
	if err != nil {
		return nil, badInput("--cassette: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: cas}
	go srv.Serve(ln)
	scratch, err := os.MkdirTemp("", "swetouch-agent-")
	if err != nil {
		srv.Close()
		return nil, err
	}
	url := "http://" + ln.Addr().String()
	if cfg.Agent, err = p.Start(agents.Launch{Bin: bin, ModelURL: url, Model: modelName, Swetouch: exe, Scratch: scratch}); err != nil {
		srv.Close()
		os.RemoveAll(scratch)
		return nil, err
	}
	cfg.ModelURL, cfg.Scratch = url, []string{scratch}
	return func() { srv.Close(); os.RemoveAll(scratch) }, nil
}

// replayWhatIf lists where the condition's interventions would fire on
// the recording: the order, the step, the time into the session, the
// trigger and region, and the command the agent was running.
func replayWhatIf(w io.Writer, rec *trajectory.Trajectory, record *task.Record, condition string, m policy.Match) error {
	if record == nil {
		return badInput("--what-if needs --records")
	}
	cond, err := policy.ParseCondition(condition)
	if err != nil {
		return badInput("--what-if: %v", err)
	}
	p, err := policy.New(record, policy.WithMatch(m), policy.WithCondition(cond))
	if err != nil {
		return badInput("%v", err)
	}
	fired := policy.Simulate(p, rec.Events)
	doing := replay.Doing(rec)
	fmt.Fprintf(w, "%s on %s: %d of %d interventions would fire over %d agent actions\n",
		cond, orDefault(rec.Header.Task, "the recording"), len(fired), len(record.CounterEdit.Interventions), len(replay.Actions(rec)))
	for _, f := range fired {
		cmd := doing[f.Step]
		if len(cmd) > 120 {
			cmd = cmd[:120] + "…"
		}
		fmt.Fprintf(w, "order %d  step %d  on %s of %s:%d-%d  while: %s\n", f.Order, f.Step, f.Event, f.Path, f.Start, f.End, cmd)
	}
	return nil
}

// agentReplayCmd is the agent a replay runs inside the session: it plays
// the recorded actions through the shim and the hub.
func agentReplayCmd() *cobra.Command {
	var trajectory, root, turn string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "replay --trajectory FILE [--root DIR] [--timeout D]",
		Short: "Play a recorded session's actions again (what swetouch replay runs as the agent)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			rec, err := loadRecording(trajectory)
			if err != nil {
				return err
			}
			ws, err := os.Getwd()
			if err != nil {
				return err
			}
			cfg := replay.RedriveConfig{Dir: ws, Roots: replay.RootMap{Root: root, Workspace: ws}, Timeout: timeout, Log: c.OutOrStdout()}
			if sock := os.Getenv("SWETOUCH_SOCKET"); sock != "" {
				hub, err := session.Dial(sock)
				if err != nil {
					return err
				}
				defer hub.Close()
				cfg.Hub = hubAdapter{hub}
			}
			if !c.Flags().Changed("turn") {
				return replay.Redrive(c.Context(), replay.Actions(rec), cfg)
			}
			// one turn of a conversation, then its reply and the session
			// to resume, on the line protocol
			turns := replay.Turns(rec)
			n := 0
			if turn != "" {
				if n, err = strconv.Atoi(turn); err != nil || n < 0 {
					return badInput("--turn: %q is not a turn this agent reported", turn)
				}
			}
			if n >= len(turns) {
				return badInput("--turn: the recording has %d turns", len(turns))
			}
			if err := replay.Redrive(c.Context(), turns[n].Actions, cfg); err != nil {
				return err
			}
			for _, kv := range [][2]string{{agents.ReplyKey, turns[n].Reply}, {agents.SessionKey, strconv.Itoa(n + 1)}} {
				b, _ := json.Marshal(map[string]string{kv[0]: kv[1]})
				fmt.Fprintln(c.OutOrStdout(), string(b))
			}
			return nil
		},
	}
	c.Flags().StringVar(&turn, "turn", "", "play one turn of a recorded conversation (\"\" for the first; each reports the next on the line protocol)")
	c.Flags().StringVar(&trajectory, "trajectory", "", "the recording")
	c.Flags().StringVar(&root, "root", "", "the recording's workspace root, mapped to the current directory")
	c.Flags().DurationVar(&timeout, "timeout", time.Minute, "bound on each command")
	c.MarkFlagRequired("trajectory")
	return c
}

// hubAdapter gives the session client the replay's Hub shape.
type hubAdapter struct{ c *session.Client }

func (h hubAdapter) Observe(ev event.Event) (int64, error) { return h.c.Observe(ev) }
func (h hubAdapter) Sync(channel string) error {
	_, err := h.c.Sync(channel)
	return err
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// replayModels are a recorded conversation's models, played back from
// the recordings beside its trajectory (none: the offline renderer and
// tests-only verdicts, as when it ran without).
func replayModels(trajectory string) conversation.Models {
	var m conversation.Models
	for _, r := range []struct {
		file string
		to   *user.Writer
	}{{conversation.PhraseLog, &m.Phrase}, {conversation.JudgeLog, &m.Judge}, {conversation.ReviewLog, &m.Review}} {
		if p := filepath.Join(filepath.Dir(trajectory), r.file); fileExists(p) {
			if tape, err := user.LoadTape(p, ""); err == nil {
				*r.to = tape
			}
		}
	}
	return m
}
