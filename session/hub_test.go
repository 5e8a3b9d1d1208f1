package session_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/trajectory"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/session/sessiontest"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

var binDir string

func TestMain(m *testing.M) { testbin.Main(m, &binDir) }

const example = "../examples/tasks/py-discount"

// live is a hub serving a fresh workspace of the py-discount example with
// its Counter-Edit record, a watcher, and a recorder.
type live struct {
	ws, out string
	sock    string
	hub     *session.Hub
	env     []string
	traj    *bytes.Buffer
}

func start(t *testing.T, cond policy.Condition) *live {
	t.Helper()
	return startWith(t, user.Options{Condition: cond}, nil)
}

// startWith is start with the region user's options, the example's
// record changed by change first (nil: as it is).
func startWith(t *testing.T, o user.Options, change func(*task.Record)) *live {
	t.Helper()
	tk, err := task.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := task.LoadRecords(filepath.Join(example, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(recs[0])
	}
	u, err := user.NewRegion(recs[0], o)
	if err != nil {
		t.Fatal(err)
	}
	ws := sessiontest.Workspace(t, example)
	w := sessiontest.Watcher(t, ws)
	l := &live{ws: ws, traj: &bytes.Buffer{}}
	rec, _ := trajectory.NewWriter(l.traj, trajectory.Header{Task: tk.Name})
	fixed := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	l.hub, err = session.New(ws, session.WithUser(u), session.WithWatcher(w), session.WithRecorder(rec), session.WithClock(func() time.Time { return fixed }))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "hub.sock")
	ln, err := session.ListenUnix(sock) // as swetouch run serves it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.hub.ServeUnix(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	l.sock = sock
	l.env = append(os.Environ(), "SWETOUCH_SOCKET="+sock, "SWETOUCH_SHIM_DIR="+binDir, "PATH="+binDir+":"+os.Getenv("PATH"))
	return l
}

// sh runs a command through the shim, as an agent would.
func (l *live) sh(t *testing.T, script string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bash"), "-c", script)
	cmd.Dir, cmd.Env = l.ws, l.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

func (l *live) events(t *testing.T) []event.Event {
	t.Helper()
	l.hub.Status() // an end answered early may still be being recorded
	tr, err := trajectory.Read(bytes.NewReader(l.traj.Bytes()), "trajectory")
	if err != nil {
		t.Fatal(err)
	}
	return tr.Events
}

// TestReadTriggersCounterEdit: reading the region through the shim lands
// the Counter-Edit in the workspace, and the user's message follows that
// command's own output.
func TestReadTriggersCounterEdit(t *testing.T) {
	l := start(t, policy.CounterEdit)
	out := l.sh(t, "nl -ba pricing.py | sed -n 4,6p")
	listing, msg, ok := strings.Cut(out, "\n<user-message>\n")
	if !ok || !strings.Contains(listing, "def apply_discount") || !strings.Contains(msg, "clamped") || !strings.HasSuffix(out, "</user-message>\n") {
		t.Fatalf("want the listing, then the message:\n%s", out)
	}
	b, _ := os.ReadFile(filepath.Join(l.ws, "pricing.py"))
	if !strings.Contains(string(b), "out-of-range discounts are clamped") {
		t.Fatalf("Counter-Edit not in the workspace:\n%s", b)
	}
	// the next command carries no message, and the user's write is not
	// reported as the agent's
	if out := l.sh(t, "git status --short"); strings.Contains(out, "<user-message>") {
		t.Errorf("message delivered twice: %s", out)
	}
	var applied, agentEdits int
	for _, ev := range l.events(t) {
		if ev.Kind == event.Intervention && ev.Attempt.Outcome == "applied" {
			applied++
		}
		if ev.Kind == event.Edit && ev.Actor == event.Agent {
			agentEdits++
		}
	}
	if applied != 1 || agentEdits != 0 {
		t.Errorf("applied %d, agent edits %d; want 1 and 0", applied, agentEdits)
	}
}

// TestNativeEditDeliveredAfterNextCommand: an edit of the region made
// outside any command (an agent's native write tool) triggers the
// Counter-Edit; its message comes after the next command's output.
func TestNativeEditDeliveredAfterNextCommand(t *testing.T) {
	l := start(t, policy.CounterEdit)
	p := filepath.Join(l.ws, "pricing.py")
	b, _ := os.ReadFile(p)
	fixed := strings.Replace(string(b), "    return price - percent\n", "    return price * (100 - percent) / 100\n", 1)
	if err := os.WriteFile(p, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	// what swetouch run does when the watcher signals a change while no
	// command runs
	if err := l.hub.Idle(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := l.sh(t, "echo next")
	if !strings.HasPrefix(out, "next\n\n<user-message>\n") {
		t.Fatalf("want the message after the next command's output:\n%s", out)
	}
	now, _ := os.ReadFile(p)
	if !strings.Contains(string(now), "clamped") || !strings.Contains(string(now), "(100 - percent) / 100") {
		t.Errorf("want the agent's fix and the Counter-Edit together:\n%s", now)
	}
	var native bool
	for _, ev := range l.events(t) {
		if ev.Kind == event.Edit && ev.Note == "native edit" && ev.Scopes[0] == event.LineScope("pricing.py", 6, 6) {
			native = true
		}
	}
	if !native {
		t.Errorf("native edit of pricing.py:6 not recorded: %+v", l.events(t))
	}
}

// TestVanillaNeverTouches (invariant 1): under vanilla the same reads and
// edits change nothing the agent did not change, and no message appears.
func TestVanillaNeverTouches(t *testing.T) {
	l := start(t, policy.Vanilla)
	before, _ := os.ReadFile(filepath.Join(l.ws, "pricing.py"))
	for _, c := range []string{"nl -ba pricing.py | sed -n 1,12p", "sed -i 's/price - percent/price/' pricing.py && sed -i 's/return price$/return price - percent/' pricing.py", "cat pricing.py"} {
		if out := l.sh(t, c); strings.Contains(out, "<user-message>") {
			t.Fatalf("message under vanilla: %s", out)
		}
	}
	after, _ := os.ReadFile(filepath.Join(l.ws, "pricing.py"))
	if !bytes.Equal(before, after) {
		t.Errorf("workspace changed under vanilla")
	}
}

// TestRecordsKeepTheirPlace: records sent without waiting (a relay's
// traffic) land in the trajectory in the order they were sent among the
// client's calls, are all there once Close returns, take no step and fire
// nothing; a record after Close is dropped.
func TestRecordsKeepTheirPlace(t *testing.T) {
	l := start(t, policy.CounterEdit)
	c, err := session.Dial(l.sock)
	if err != nil {
		t.Fatal(err)
	}
	traffic := func(n int) event.Event {
		return event.Event{Kind: event.Traffic, Source: "acp", Actor: event.Agent, Raw: []byte(fmt.Sprintf(`{"n":%d}`, n))}
	}
	for n := range 3 {
		c.Record(traffic(n))
	}
	if _, err := c.Observe(event.Event{Kind: event.Read, Source: "acp", Scopes: []event.Scope{event.LineScope("pricing.py", 4, 6)}}); err != nil {
		t.Fatal(err)
	}
	for n := 3; n < 200; n++ { // more than a batch
		c.Record(traffic(n))
	}
	c.Close()
	c.Record(traffic(-1))
	var got []string
	for _, ev := range l.events(t) {
		switch {
		case ev.Kind == event.Traffic:
			if ev.Step != nil {
				t.Errorf("a record took step %d", *ev.Step)
			}
			got = append(got, string(ev.Raw))
		case ev.Kind == event.Read:
			got = append(got, "read")
		}
	}
	var want []string
	for n := range 200 {
		if n == 3 {
			want = append(want, "read")
		}
		want = append(want, fmt.Sprintf(`{"n":%d}`, n))
	}
	if !slices.Equal(got, want) {
		t.Errorf("trajectory order:\n%q\nwant\n%q", got, want)
	}
	if st := l.hub.Status(); st.Steps != 1 || len(st.Interventions) != 1 {
		t.Errorf("hub: %d steps, %d interventions; want the read's alone", st.Steps, len(st.Interventions))
	}
}

// TestEndAnswering: when nothing can fire, end is answered (with no
// messages) before the hub waits for the watcher and records the command,
// and a call from elsewhere still comes after it; while an intervention
// can fire, the answer waits for the decision and carries its message.
func TestEndAnswering(t *testing.T) {
	ctx := context.Background()
	read := session.Begin{Command: "nl -ba pricing.py | sed -n 4,6p", Cwd: "."}
	for _, tt := range []struct {
		cond     policy.Condition
		early    bool
		messages int
	}{
		{policy.Vanilla, true, 0},
		{policy.CounterEdit, false, 1},
	} {
		t.Run(string(tt.cond), func(t *testing.T) {
			l := start(t, tt.cond)
			id, err := l.hub.Begin(ctx, read)
			if err != nil {
				t.Fatal(err)
			}
			var recordedFirst bool
			var got []session.Message
			answered := make(chan struct{})
			next := make(chan int64)
			err = l.hub.EndAnswering(ctx, id, session.End{Output: "     4\tdef apply_discount(price, percent):\n"}, func(m []session.Message) {
				got = m
				recordedFirst = bytes.Contains(l.traj.Bytes(), []byte(`"kind":"read"`))
				close(answered)
				// another connection's call, made as soon as the answer is out
				go func() {
					seq, _ := l.hub.Observe(ctx, event.Event{Kind: event.Run, Command: "next"})
					next <- seq
				}()
			})
			if err != nil {
				t.Fatal(err)
			}
			<-answered
			if recordedFirst == tt.early || len(got) != tt.messages {
				t.Errorf("answered after recording: %v, with %d messages; want %v, %d", recordedFirst, len(got), !tt.early, tt.messages)
			}
			seq := <-next
			for _, ev := range l.events(t) {
				if ev.Command == read.Command && ev.Seq > seq {
					t.Errorf("the command's event (seq %d) was recorded after the next call (seq %d)", ev.Seq, seq)
				}
			}
		})
	}
}

// TestUnconfirmedChannel: a message handed out on a channel that cannot
// be shown to reach the model is counted apart, never as delivered, and
// the trajectory says which channel carried it.
func TestUnconfirmedChannel(t *testing.T) {
	for _, tt := range []struct {
		channel                string
		delivered, unconfirmed int
	}{{"mcp-result", 1, 0}, {"unconfirmed:mcp-content-only", 0, 1}} {
		l := start(t, policy.CounterEdit)
		id, err := l.hub.Begin(context.Background(), session.Begin{Command: "mcp read_text_file", Source: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		read := event.Event{Kind: event.Read, Scopes: []event.Scope{event.LineScope("pricing.py", 1, 6)}}
		msgs, err := l.hub.End(context.Background(), id, session.End{Events: []event.Event{read}, Channel: tt.channel})
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%s: messages %v, %v", tt.channel, msgs, err)
		}
		st := l.hub.Status()
		if _, delivered := st.Counts(); delivered != tt.delivered || st.Unconfirmed != tt.unconfirmed {
			t.Errorf("%s: delivered %d, unconfirmed %d; want %d, %d", tt.channel, delivered, st.Unconfirmed, tt.delivered, tt.unconfirmed)
		}
		var note string
		for _, ev := range l.events(t) {
			if ev.Kind == event.Message {
				note = ev.Note
			}
		}
		if note != tt.channel {
			t.Errorf("the message event's channel %q, want %q", note, tt.channel)
		}
	}
}

// talker is a conversational user: at each turn's end it says one thing,
// then ends the conversation.
type talker struct {
	said  []string
	turns int
	saw   int // events in the history at the last turn end
}

func (t *talker) Act(user.History, []event.Event) *user.Act { return nil }
func (t *talker) Outcome(*user.Act, string)                 {}
func (t *talker) Armed() bool                               { return false }
func (t *talker) TurnEnd(h user.History) *user.Act {
	t.saw = len(h.Events())
	if t.turns >= len(t.said) {
		return &user.Act{End: true}
	}
	t.turns++
	return &user.Act{Order: t.turns, Message: t.said[t.turns-1], Source: "seed"}
}

// TestTurnEnd: the hub asks a conversational user at each turn's end,
// showing it the session so far; what it says is recorded and delivered
// on the turn channel, and it ends the conversation when it will; a user
// that is not conversational never speaks there.
func TestTurnEnd(t *testing.T) {
	l := start(t, policy.Vanilla)
	tk := &talker{said: []string{"It still fails for 150; please look again."}}
	h, err := session.New(l.ws, session.WithUser(tk))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := h.Begin(context.Background(), session.Begin{Command: "cat pricing.py"})
	h.End(context.Background(), id, session.End{})
	msgs, end, err := h.TurnEnd(context.Background())
	if err != nil || end || len(msgs) != 1 || msgs[0].Text != tk.said[0] || tk.saw == 0 {
		t.Fatalf("first turn end: %v %v %v (saw %d events)", msgs, end, err, tk.saw)
	}
	if msgs, end, _ := h.TurnEnd(context.Background()); !end || len(msgs) != 0 {
		t.Errorf("second turn end: %v, end %v", msgs, end)
	}
	if msgs, end, _ := l.hub.TurnEnd(context.Background()); !end || len(msgs) != 0 {
		t.Errorf("a region user at a turn's end: %v, end %v", msgs, end)
	}
}

// TestToldReadTakesNoEdit: a read told once it is over changes no file,
// so an edit the watcher sees while another command runs stays that
// command's: the read, begun and ended in one line, neither takes it at
// its end nor lets another connection's begin fall between its begin and
// its end (where that begin would skip its barrier).
func TestToldReadTakesNoEdit(t *testing.T) {
	l := start(t, policy.Vanilla)
	shell, err := session.Dial(l.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer shell.Close()
	const sed = "sed -i s/percent/pct/ pricing.py"
	id, err := shell.Begin(session.Begin{Command: sed, Cwd: l.ws})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(l.ws, "pricing.py")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "percent", "pct")), 0o644); err != nil {
		t.Fatal(err)
	}
	mcp, err := session.Dial(l.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer mcp.Close()
	const read = `mcp read_text_file {"path":"pricing.py"}`
	mcp.Told(session.Begin{Command: read, Source: "mcp"},
		session.End{Output: "def apply_discount", Events: []event.Event{{Kind: event.Read, Source: "mcp", Actor: event.Agent,
			Tool: "read_text_file", Scopes: []event.Scope{event.FileScope("pricing.py")}}}})
	if _, err := mcp.Status(); err != nil { // answered after the told line
		t.Fatal(err)
	}
	if _, err := shell.End(id, session.End{}); err != nil {
		t.Fatal(err)
	}
	var edits []event.Event
	for _, ev := range l.events(t) {
		if ev.Kind == event.Edit && ev.Source == "watch" {
			edits = append(edits, ev)
		}
	}
	if len(edits) != 1 || edits[0].Command != sed {
		t.Errorf("the edit made while %q ran: %+v; want one edit, that command's", sed, edits)
	}
}

// TestToldCall: a call told in one line once it is over (Client.Told, a
// read nothing can fire on) is one action, begun and ended when the line
// comes; what changed before it is taken first as a native edit, as it
// is for a call told before it runs; and the hub holds no command open
// after it. An end that begins its command names no id.
func TestToldCall(t *testing.T) {
	l := start(t, policy.Vanilla)
	p := filepath.Join(l.ws, "pricing.py")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "    return price - percent\n", "    return price * (100 - percent) / 100\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := session.Dial(l.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Told(session.Begin{Command: `mcp read_text_file {"path":"pricing.py"}`, Source: "mcp"},
		session.End{Output: "def apply_discount", Events: []event.Event{{Kind: event.Read, Source: "mcp", Actor: event.Agent,
			Tool: "read_text_file", Scopes: []event.Scope{event.FileScope("pricing.py")}}}})
	st, err := c.Status() // answered after the line before it
	if err != nil {
		t.Fatal(err)
	}
	if st.Running != 0 {
		t.Errorf("%d commands still running after a told call", st.Running)
	}
	nativeStep, readStep := -1, -1
	for _, ev := range l.events(t) {
		switch {
		case ev.Kind == event.Edit && ev.Note == "native edit" && ev.Step != nil:
			nativeStep = *ev.Step
		case ev.Kind == event.Read && ev.Tool == "read_text_file" && ev.Step != nil:
			readStep = *ev.Step
			if ev.Exit == nil || *ev.Exit != 0 || len(ev.Scopes) != 1 || ev.Scopes[0] != event.FileScope("pricing.py") {
				t.Errorf("the read: %+v", ev)
			}
		}
	}
	if nativeStep < 0 || readStep < 0 || nativeStep >= readStep {
		t.Errorf("native edit at step %d, the read at %d: want the edit first, as its own action (%+v)", nativeStep, readStep, l.events(t))
	}
	if _, err := c.End(0, session.End{}); err == nil {
		t.Error("an end of no command was taken")
	}
	raw, err := net.Dial("unix", l.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	io.WriteString(raw, `{"op":"end","id":3,"begin":{"command":"x"},"end":{}}`+"\n")
	if line, _ := bufio.NewReader(raw).ReadString('\n'); !strings.Contains(line, `an end that begins its command names no id or key`) {
		t.Errorf("an end with a begin and an id: %s", line)
	}
}
