package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/session/wire"
	"github.com/swetouch/swetouch/shell"
	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/watch"
)

// The hub's calls take and give the wire protocol's types.
type (
	Begin   = wire.Begin
	End     = wire.End
	Message = wire.Message
	Status  = wire.Status
)

// Hub is the decision point of one run. All methods are safe for
// concurrent use; decisions are taken one at a time.
type Hub struct {
	readers sync.Pool // lineReaders of connections served, for the next (serveConn)

	root     string
	classify *shell.Session
	usr      user.User
	history  history // everything recorded, for the user to see
	rec      *trajectory.Writer
	w        *watch.Watcher
	now      func() time.Time

	mu      sync.Mutex
	seq     int64
	step    int
	nextCmd int
	running map[int]runningCmd
	// progress is closed, and replaced, when a command leaves running or a
	// connection has done a line while a begin waits (see awaitEndsLocked)
	progress chan struct{}
	waiting  int
	outbox   []Message
	// unconfirmed counts the messages handed to a channel that cannot be
	// shown to reach the model
	unconfirmed int
	attempts    []event.Attempt
	closed      bool
	clients     []string          // the executables that may act (WithClients)
	token       string            // the first line every client must send (WithToken)
	own         func(string) bool // WithOwnCommands
	maxLine     int               // WithLineLimit; 0 for maxLine
	budget      *lineBudget       // for long lines, shared by every connection (WithLineBudget)
	// disarmed says why nothing may fire any more (the agent has exited):
	// decisions are then recorded as skipped
	disarmed string
	// selfCheck answers the selfcheck op (WithSelfCheck)
	selfCheck func(ctx context.Context) (string, error)
	// onEvent is told every event once recorded (WithEventHook)
	onEvent func(event.Event)
}

// Option configures a Hub.
type Option func(*Hub)

// WithUser sets who the user is; without one the hub observes only
// (vanilla).
func WithUser(u user.User) Option { return func(h *Hub) { h.usr = u } }

// WithRecorder records every event to a trajectory.
func WithRecorder(w *trajectory.Writer) Option { return func(h *Hub) { h.rec = w } }

// WithEventHook tells f every event once it is recorded, in order (swetouch
// run's progress). f runs under the hub's lock: it must be quick and must
// not call the hub.
func WithEventHook(f func(event.Event)) Option { return func(h *Hub) { h.onEvent = f } }

// WithWatcher attributes the workspace's file changes to commands and
// native edits.
func WithWatcher(w *watch.Watcher) Option { return func(h *Hub) { h.w = w } }

// WithLineLimit sets the longest request line the hub takes (tests use a
// small one).
func WithLineLimit(n int) Option { return func(h *Hub) { h.maxLine = n } }

// WithOwnCommands names the commands an agent runs on its own, not as a
// model's action (Claude Code's `env` at start-up): they are recorded, by
// the harness actor, and take no step and trigger nothing.
//
// Only the shells the shim reports are asked about: what the agent's own
// event stream reports (Source other than "shell") is its model's.
func WithOwnCommands(own func(command string) bool) Option { return func(h *Hub) { h.own = own } }

// WithClock sets the clock used for event times (tests pass a fixed one).
func WithClock(now func() time.Time) Option { return func(h *Hub) { h.now = now } }

// WithSelfCheck answers an agent's self-check (a generator asking
// whether its edit does what it must, by the task's tests it cannot see)
// with check's report.
func WithSelfCheck(check func(ctx context.Context) (string, error)) Option {
	return func(h *Hub) { h.selfCheck = check }
}

// New returns the hub of a run in workspace root.
func New(root string, opts ...Option) (*Hub, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	h := &Hub{root: abs, now: time.Now, running: map[int]runningCmd{}, progress: make(chan struct{})}
	for _, o := range opts {
		o(h)
	}
	if h.budget == nil {
		h.budget = newLineBudget(2 * h.lineLimit())
	}
	h.classify = shell.NewSession(shell.WithRoot(abs), shell.WithFiles(shell.DirSource(abs)))
	return h, nil
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("session closed")

// runningCmd is a command begun and not yet ended.
type runningCmd struct {
	Begin
	from origin    // the connection it came on; nil for an in-process caller
	at   time.Time // when it began, by the hub's clock
	told bool      // begun and ended at once, having changed no file (Told)
}

// origin is a client's connection, which knows whether the client has
// said something the hub has not taken yet (an end, a hang-up).
type origin interface{ unread() bool }

type originKey struct{}

// withOrigin marks the calls made with ctx as coming from o.
func withOrigin(ctx context.Context, o origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// Begin records that a command starts and returns its id. Changes made
// while no command ran are taken first, as native edits.
func (h *Hub) Begin(ctx context.Context, b Begin) (int, error) {
	id, _, err := h.beginArmed(ctx, b)
	return id, err
}

// beginArmed is Begin that also says whether the hub is armed.
func (h *Hub) beginArmed(ctx context.Context, b Begin) (int, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, err := h.beginLocked(ctx, runningCmd{Begin: b})
	if err != nil {
		return 0, false, err
	}
	return id, h.armedLocked(), nil
}

// beginLocked begins r's command (its origin and start are set here)
// and returns its id.
func (h *Hub) beginLocked(ctx context.Context, r runningCmd) (int, error) {
	h.awaitEndsLocked(ctx)
	if h.closed {
		return 0, ErrClosed
	}
	// Changes made before the command (an agent's native edit) are the
	// agent's own action, not the command's. A barrier, not Pending: an
	// edit whose event the watcher has not read yet would otherwise be
	// folded into the command (seen with Gemini CLI writing a file and
	// running the tests at once).
	if len(h.running) == 0 && h.w != nil {
		if err := h.nativeLocked(ctx); err != nil {
			return 0, err
		}
	}
	h.nextCmd++
	r.from, _ = ctx.Value(originKey{}).(origin)
	r.at = time.Now()
	h.running[h.nextCmd] = r
	return h.nextCmd, nil
}

// Told records a command told in one line once it is over (a read
// nothing can fire on, Client.Told), begun and ended under one hold of
// the hub, so that no other connection's begin falls between the two
// (where it would skip its barrier). What changed before it is taken
// first, as a native edit, as for any begin; it changed no file, so its
// end takes no changes: what the watcher holds then is left to a command
// still running, or to the next barrier. answer is as EndAnswering's.
func (h *Hub) Told(ctx context.Context, b Begin, e End, answer func([]Message)) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, err := h.beginLocked(ctx, runningCmd{Begin: b, told: true})
	if err != nil {
		return err
	}
	return h.endAnsweringLocked(ctx, id, e, answer)
}

// awaitEndsLocked waits, up to endWait, until no running command's
// connection holds an end the hub has not taken. A shim that nothing can
// answer any more sends its end without waiting and exits, and the
// agent's next action (a command, a tool call, a look at the status) can
// reach the hub before that end has been read on its own connection; it
// must come after it. Every call that acts or reports starts with it.
// Called with h.mu held, which it lets go while it waits.
func (h *Hub) awaitEndsLocked(ctx context.Context) { h.awaitEndsForLocked(ctx, endWait) }

// endWait bounds how long a call waits for ends the hub has not taken.
// What it waits for is the hub's own work on a line already sent (a
// watcher's sync, a classification), never the client: a connection that
// has sent nothing whole is not waited for. So the bound is only for a
// client that never stops sending; it was 50 ms, which a loaded machine
// (load average 20) outran: a heredoc's end was taken after the next
// command's begin, or after the session closed, and recorded with no exit.
const endWait = 2 * time.Second

// closeWait bounds the wait at the session's close, when the agent is
// gone and nothing is late but the hub's own work.
const closeWait = 10 * time.Second

func (h *Hub) awaitEndsForLocked(ctx context.Context, wait time.Duration) {
	// the caller's own commands end after this call: it sent it first
	self, _ := ctx.Value(originKey{}).(origin)
	deadline := time.Now().Add(wait)
	for {
		waiting := false
		for _, r := range h.running {
			if r.from != nil && r.from != self && r.from.unread() {
				waiting = true
				break
			}
		}
		left := time.Until(deadline)
		if !waiting || left <= 0 {
			return
		}
		progress := h.progress
		h.waiting++
		h.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-progress:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		h.mu.Lock()
		h.waiting--
	}
}

// progressedLocked wakes the calls waiting in awaitEndsLocked, to look
// again.
func (h *Hub) progressedLocked() {
	if h.waiting > 0 {
		close(h.progress)
		h.progress = make(chan struct{})
	}
}

// lineDone tells the waiting calls a connection has done a line.
func (h *Hub) lineDone() {
	h.mu.Lock()
	h.progressedLocked()
	h.mu.Unlock()
}

// End records a command's result: its classification, the file changes
// it made (from the watcher), and any intervention they trigger. It returns
// the messages to deliver with the command's output.
func (h *Hub) End(ctx context.Context, id int, e End) ([]Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.endLocked(ctx, id, e, ""); err != nil {
		return nil, err
	}
	return h.drainLockedOn(orDefault(e.Channel, "tool-output")), nil
}

// abandon ends the commands begun on connection from that will never see
// their end (their shim was killed, by SIGKILL or a timeout, and the
// connection closed), in the order they began: their changes so far are
// their own, their exit is unknown (-1), and they no longer hold the hub
// in a command, where native edits wait. Their messages stay pending for
// the next command.
func (h *Hub) abandon(ctx context.Context, from origin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	var ids []int
	for id, r := range h.running {
		if r.from == from {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		h.endLocked(ctx, id, End{Exit: -1}, "no end: the shell's connection to the hub closed first")
	}
}

// EndAnswering is End for a caller waiting on the other side of a socket:
// answer gets the messages to deliver as soon as they are known. When
// nothing can fire (Armed is false) that is before the hub waits for the
// watcher and records the command, so the caller (a shell shim, whose
// agent waits for it to exit) is not held up by them; the hub stays locked
// until they are done, so the next call, from any connection, still comes
// after this command. answer is not called when End fails first.
func (h *Hub) EndAnswering(ctx context.Context, id int, e End, answer func([]Message)) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.endAnsweringLocked(ctx, id, e, answer)
}

// endAnsweringLocked is EndAnswering with h.mu held.
func (h *Hub) endAnsweringLocked(ctx context.Context, id int, e End, answer func([]Message)) error {
	if r, ok := h.running[id]; !ok {
		return fmt.Errorf("unknown command %d", id)
	} else if from, _ := ctx.Value(originKey{}).(origin); r.from != nil && from != nil && from != r.from {
		return fmt.Errorf("command %d was begun on another connection", id)
	}
	early := !h.armedLocked()
	if early {
		answer(nil) // nothing to deliver, and nothing this command does can change that
	}
	err := h.endLocked(ctx, id, e, "")
	if err == nil && !early {
		answer(h.drainLockedOn(orDefault(e.Channel, "tool-output")))
	}
	return err
}

// endLocked ends command id and acts on it; note, when set, says why on
// its first event. The messages it may have made wait in the outbox.
func (h *Hub) endLocked(ctx context.Context, id int, e End, note string) error {
	r, ok := h.running[id]
	if !ok {
		return fmt.Errorf("unknown command %d", id)
	}
	if from, _ := ctx.Value(originKey{}).(origin); r.from != nil && from != nil && from != r.from {
		return fmt.Errorf("command %d was begun on another connection", id)
	}
	b := r.Begin
	delete(h.running, id)
	h.progressedLocked()
	var changes []watch.Change
	var syncErr error
	if h.w != nil && !r.told {
		changes, syncErr = h.w.Sync(ctx)
	}
	if h.own != nil && len(e.Events) == 0 && orDefault(b.Source, "shell") == "shell" && h.own(b.Command) {
		ev := event.Event{Kind: event.Run, Source: orDefault(b.Source, "shell"), Actor: event.Harness, Command: b.Command,
			Exit: &e.Exit, Note: "the agent's own command, not a model's action"}
		evs := append([]event.Event{ev}, changeEvents(changes, b.Command, h.step, event.Agent)...)
		return h.actLocked(ctx, evs)
	}
	step := h.step
	h.step++
	evs := e.Events
	if len(evs) == 0 {
		var obs *shell.Observation // nil: the output was not seen
		if !e.Unseen {
			obs = &shell.Observation{Text: e.Output, Tail: e.Tail, Elided: e.Elided}
		}
		evs = h.classify.ClassifyAt(b.Cwd, b.Command, obs).Events(b.Command)
	}
	exit := e.Exit
	for i := range evs {
		evs[i].Source, evs[i].Actor, evs[i].Step = orDefault(b.Source, "shell"), event.Agent, &step
		if i == 0 {
			evs[i].Exit = &exit
			evs[i].Output = trajectory.NewOutput(e.Output)
			if e.Elided {
				evs[i].Output = &event.Output{Head: e.Output, Tail: e.Tail, Elided: true, Bytes: e.Bytes}
			}
			if e.Signal != "" {
				evs[i].Note = "killed by " + e.Signal
			}
			if note != "" {
				evs[i].Note = note
			}
		}
	}
	evs = append(evs, changeEvents(changes, b.Command, step, event.Agent)...)
	if syncErr != nil {
		evs = append(evs, event.Event{Kind: event.Session, Source: "watch", Note: syncErr.Error(), Step: &step})
	}
	return h.actLocked(ctx, evs)
}

// Observe records an event an adapter saw (an MCP tool call, an editor
// write) as one agent action and lets the policy decide on it.
func (h *Hub) Observe(ctx context.Context, ev event.Event) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsLocked(ctx)
	if h.closed {
		return 0, ErrClosed
	}
	step := h.step
	h.step++
	if ev.Step == nil {
		ev.Step = &step
	}
	if ev.Actor == "" {
		ev.Actor = event.Agent
	}
	if err := h.actLocked(ctx, []event.Event{ev}); err != nil {
		return 0, err
	}
	return h.seq, nil
}

// Record records an event that is not an action (a relay's traffic): it
// gets its place in the trajectory, and nothing is decided on it.
func (h *Hub) Record(ev event.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrClosed
	}
	ev.Step = nil
	return h.recordLocked(ev)
}

// Sync takes the file changes made outside any command now (after an
// agent's native tool ran) and returns the messages waiting for the
// channel. Hooks that run after each tool call use it.
func (h *Hub) Sync(ctx context.Context, channel string) ([]Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsLocked(ctx)
	if h.closed {
		return nil, ErrClosed
	}
	if len(h.running) == 0 {
		if err := h.nativeLocked(ctx); err != nil {
			return nil, err
		}
	}
	return h.drainLockedOn(orDefault(channel, "tool-output")), nil
}

// Idle takes the changes made while no command runs (native edits) now,
// rather than at the next Begin. The watcher's owner calls it when files
// change.
func (h *Hub) Idle(ctx context.Context) error {
	_, err := h.IdleHeld(ctx, 0)
	return err
}

// IdleHeld is Idle that also takes the changes made while commands run,
// once every running command has run for at least hold: a command that
// never ends (a shim's `sleep` left in the background) must not hide the
// agent's native edits, and the policy's answer to them, for the rest of
// the run. Such changes are attributed to the running commands, as their
// end would have. It returns how long to wait before a command still
// younger than hold is old enough (0: nothing is held). hold 0 takes
// nothing while a command runs.
func (h *Hub) IdleHeld(ctx context.Context, hold time.Duration) (time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, nil
	}
	if len(h.running) == 0 {
		return 0, h.nativeLocked(ctx)
	}
	if hold <= 0 || h.w == nil {
		return 0, nil
	}
	var ids []int
	for id, r := range h.running {
		if left := hold - time.Since(r.at); left > 0 {
			return left, nil
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	changes, err := h.w.Sync(ctx)
	if err != nil || len(changes) == 0 {
		return 0, nil
	}
	step := h.step
	h.step++
	evs := changeEvents(changes, h.running[ids[0]].Command, step, event.Agent)
	for i := range evs {
		evs[i].Source = orDefault(h.running[ids[0]].Source, "shell")
		evs[i].Note = "taken while the command ran"
		if len(ids) > 1 {
			evs[i].Note = fmt.Sprintf("taken while %d commands ran", len(ids))
		}
	}
	return 0, h.actLocked(ctx, evs)
}

func (h *Hub) nativeLocked(ctx context.Context) error {
	if h.w == nil {
		return nil
	}
	changes, err := h.w.Sync(ctx)
	if err != nil && len(changes) == 0 {
		return nil // reported with the next command's changes
	}
	if len(changes) == 0 {
		return nil
	}
	step := h.step
	h.step++
	evs := changeEvents(changes, "", step, event.Agent)
	for i := range evs {
		evs[i].Note = "native edit"
	}
	return h.actLocked(ctx, evs)
}

// changeEvents turns watcher changes into edit events.
func changeEvents(cs []watch.Change, command string, step int, actor event.Actor) []event.Event {
	var evs []event.Event
	for _, c := range cs {
		ev := event.Event{Kind: event.Edit, Source: "watch", Actor: actor, Command: command, Diff: c.Diff, Step: &step}
		for _, r := range c.Ranges {
			ev.Scopes = append(ev.Scopes, event.LineScope(c.Path, r.Start, r.End))
		}
		if len(ev.Scopes) == 0 {
			ev.Scopes = []event.Scope{event.FileScope(c.Path)}
		}
		evs = append(evs, ev)
	}
	return evs
}

func (h *Hub) recordLocked(ev event.Event) error {
	h.seq++
	ev.Seq = h.seq
	if ev.Time.IsZero() {
		ev.Time = h.now()
	}
	h.history.add(ev)
	if h.onEvent != nil {
		h.onEvent(ev)
	}
	if h.rec == nil {
		return nil
	}
	return h.rec.Write(ev)
}

// Status reports the hub's state.
func (h *Hub) Status() Status { return h.status(context.Background()) }

func (h *Hub) status(ctx context.Context) Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsLocked(ctx)
	return Status{Seq: h.seq, Steps: h.step, Running: len(h.running), Pending: len(h.outbox), Unconfirmed: h.unconfirmed, Interventions: append([]event.Attempt{}, h.attempts...)}
}

// Close records the end of the session; later calls fail with ErrClosed.
func (h *Hub) Close(note string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.awaitEndsForLocked(context.Background(), closeWait)
	if h.closed {
		return nil
	}
	h.closed = true
	return h.recordLocked(event.Event{Kind: event.Session, Source: "harness", Actor: event.Harness, Note: note})
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
