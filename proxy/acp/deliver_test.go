package acp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/swetouch/swetouch/policy"
)

// TestSteering: an agent that takes _session/steering gets the message
// inside the running turn, and no extra turn is started.
func TestSteering(t *testing.T) {
	ws, hub, _ := hubFor(t, policy.CounterEdit)
	w := wireAgent(t, ws, true, true, WithHub(hub))
	w.prompt(t, context.Background(), "read")
	w.prompt(t, context.Background(), "next")
	select {
	case <-w.ag.wasSteered:
	case <-time.After(30 * time.Second): // a guard, not a wait
		t.Fatal("the agent was never steered")
	}
	<-w.ed.shown // the echo follows the agent's answer
	w.ag.mu.Lock()
	prompts, steered := append([]string(nil), w.ag.prompts...), append([]string(nil), w.ag.steered...)
	w.ag.mu.Unlock()
	if len(steered) != 1 || !strings.Contains(steered[0], "clamped") {
		t.Errorf("steered with %q, want the user's message", steered)
	}
	if len(prompts) != 2 {
		t.Errorf("turns %q: want only the editor's two", prompts)
	}
	if strings.Contains(w.toEditor.String(), `"swetouch-`) {
		t.Errorf("the editor saw the answer to the relay's own request:\n%s", w.toEditor.String())
	}
	if !strings.Contains(w.toAgent.String(), `"_meta":{"steering":{"idleBehavior":"promptRequired"}}`) {
		t.Errorf("the steering request does not ask the agent to refuse when idle:\n%s", w.toAgent.String())
	}
	w.ed.mu.Lock()
	defer w.ed.mu.Unlock()
	if len(w.ed.user) != 1 || w.ed.user[0] != steered[0] {
		t.Errorf("the editor was shown %q, want the message once", w.ed.user)
	}
}

// TestSteeringRefused: an agent that refuses the steering request (its
// turn ended first) gets the message as a user turn instead, shown to the
// editor once.
func TestSteeringRefused(t *testing.T) {
	ws, hub, _ := hubFor(t, policy.CounterEdit)
	w := wireAgent(t, ws, true, true, WithHub(hub))
	w.ag.mu.Lock()
	w.ag.refuseSteering = true
	w.ag.mu.Unlock()
	w.prompt(t, context.Background(), "read")
	w.prompt(t, context.Background(), "next")
	// the refusal may come after the read's turn, or after next's: the
	// message is a turn of its own either way
	var prompts []string
	for len(prompts) < 3 {
		prompts = append(prompts, <-w.ag.got)
	}
	<-w.ed.shown
	var message string
	for _, p := range prompts {
		if strings.Contains(p, "clamped") {
			message = p
		}
	}
	if prompts[0] != "read" || message == "" || !slices.Contains(prompts, "next") {
		t.Errorf("the agent's turns %q: want read, then the user's message and next", prompts)
	}
	w.ed.mu.Lock()
	defer w.ed.mu.Unlock()
	if len(w.ed.user) != 1 || w.ed.user[0] != message {
		t.Errorf("the editor was shown %q, want the message once", w.ed.user)
	}
}

// TestInterruptDelivery: with Interrupt, a message that comes mid-turn
// (the read fires the Counter-Edit, the agent goes on working) cancels
// the turn with session/cancel; the editor sees its turn end as
// cancelled, and the message is the agent's next turn, shown to the
// editor. Under Auto the same turn is not cancelled: the message waits.
func TestInterruptDelivery(t *testing.T) {
	// the SDK's agent answers a cancelled turn with -32800 rather than a
	// stop reason: either is the turn ending as cancelled
	endsCancelled := func(res acp.PromptResponse, err error) bool {
		return err == nil && res.StopReason == acp.StopReasonCancelled || err != nil && strings.Contains(err.Error(), "-32800")
	}
	ws, hub, _ := hubFor(t, policy.CounterEdit)
	w := wire(t, ws, true, WithHub(hub), WithDelivery(Interrupt))
	if res, err := w.edConn.Prompt(context.Background(), acp.PromptRequest{SessionId: w.sessionID, Prompt: []acp.ContentBlock{acp.TextBlock("read and wait")}}); !endsCancelled(res, err) {
		t.Fatalf("the turn ended with %+v, %v; want cancelled", res, err)
	}
	w.prompt(t, context.Background(), "next")
	w.ag.mu.Lock()
	prompts := append([]string(nil), w.ag.prompts...)
	w.ag.mu.Unlock()
	if len(prompts) != 3 || !strings.Contains(prompts[1], "clamped") || prompts[2] != "next" {
		t.Errorf("the agent's turns %q: want the cancelled one, the user's message, next", prompts)
	}
	w.ed.mu.Lock()
	user := append([]string(nil), w.ed.user...)
	w.ed.mu.Unlock()
	if len(user) != 1 || user[0] != prompts[1] {
		t.Errorf("the editor was shown %q", user)
	}
	if n := strings.Count(w.toAgent.String(), `"method":"session/cancel"`); n != 1 {
		t.Errorf("%d session/cancel sent, want 1", n)
	}

	// under Auto the turn goes on: by the time the agent has its read (the
	// message is due by then) nothing cancelled it
	ws, hub, _ = hubFor(t, policy.CounterEdit)
	w = wire(t, ws, true, WithHub(hub))
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		w.edConn.Prompt(ctx, acp.PromptRequest{SessionId: w.sessionID, Prompt: []acp.ContentBlock{acp.TextBlock("read and wait")}})
		close(ended)
	}()
	<-w.ag.hasRead
	if strings.Contains(w.toAgent.String(), "session/cancel") {
		t.Errorf("under Auto the relay cancelled the turn")
	}
	cancel()
	<-ended
}

// TestParseDelivery: the CLI's names, and a clear error.
func TestParseDelivery(t *testing.T) {
	for _, n := range []string{"auto", "queue", "interrupt"} {
		if d, err := ParseDelivery(n); err != nil || string(d) != n {
			t.Errorf("%s: %v %v", n, d, err)
		}
	}
	if _, err := ParseDelivery("steer"); err == nil || !strings.Contains(err.Error(), "want auto, queue or interrupt") {
		t.Errorf("steer: %v", err)
	}
}
