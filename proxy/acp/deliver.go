package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
)

// How the user's messages reach the agent: steered into the running turn,
// queued as a turn of their own after it (the editor's next prompt held),
// or after cancelling it; and how the editor is shown them.

// oursPrefix starts the ids of the relay's own requests.
const oursPrefix = "swetouch-"

// deliver hands the user's messages to the agent: steered into the
// running turn when the agent takes it, else queued for the turn's end,
// else (no turn runs) as a turn of its own now.
func (r *Relay) deliver(sess string, msgs []session.Message) {
	if len(msgs) == 0 {
		return
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	r.deliverTexts(sess, texts, true)
}

// deliverTexts is deliver; maySteer is false when steering already
// failed for these texts.
func (r *Relay) deliverTexts(sess string, texts []string, maySteer bool) {
	r.mu.Lock()
	if sess == "" {
		sess = r.lastSess
	}
	_, inTurn := r.turns[sess]
	steer := maySteer && r.delivery == Auto && r.steering && inTurn
	if !steer && (inTurn || r.busyLocked(sess)) {
		r.queued[sess] = append(r.queued[sess], texts...)
		interrupt := r.delivery == Interrupt && inTurn && !r.cancelled[sess]
		if interrupt {
			r.cancelled[sess] = true
		}
		r.mu.Unlock()
		if interrupt {
			r.cancel(sess)
		}
		return
	}
	r.mu.Unlock()
	if steer {
		r.steer(sess, texts)
		return
	}
	r.inject(sess, texts)
}

func (r *Relay) nextID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	return fmt.Sprintf("%q", fmt.Sprintf("%s%d", oursPrefix, r.next))
}

// inject runs the messages as a user turn of their own and shows them to
// the person in the editor as a user message.
func (r *Relay) inject(sess string, texts []string) { r.send(r.reserve(sess), sess, texts) }

// reserve takes a request id for an injected turn in the session: from
// now on the editor's prompts to it wait.
func (r *Relay) reserve(sess string) string {
	id := r.nextID()
	r.mu.Lock()
	r.injected[proxy.IDKey(json.RawMessage(id))] = sess
	r.mu.Unlock()
	return id
}

// send sends the injected turn reserved as id.
func (r *Relay) send(id, sess string, texts []string) {
	text := strings.Join(texts, "\n\n")
	r.echo(sess, text)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "session/prompt",
		"params": map[string]any{"sessionId": sess, "prompt": []any{map[string]any{"type": "text", "text": text}}}})
	r.log("swetouch", b)
	r.toAgent.line(b)
}

// steer puts the messages into the running turn (_session/steering).
// The turn may end before the agent reads the request: promptRequired
// asks it to refuse then rather than start a turn the editor never asked
// for, and a refusal falls back to a user turn (steered).
func (r *Relay) steer(sess string, texts []string) {
	id := r.nextID()
	r.mu.Lock()
	r.steers[proxy.IDKey(json.RawMessage(id))] = steerReq{sess: sess, texts: texts}
	r.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "_session/steering",
		"params": map[string]any{"sessionId": sess, "prompt": []any{map[string]any{"type": "text", "text": strings.Join(texts, "\n\n")}},
			"_meta": map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}}})
	r.log("swetouch", b)
	r.toAgent.line(b)
}

// steered handles the agent's answer to a steering request: taken, the
// editor is shown the message; refused (an error, outcome "failed"), the
// message goes as a user turn instead.
func (r *Relay) steered(req steerReq, e proxy.Envelope) {
	var res struct {
		Outcome string `json:"outcome"`
	}
	json.Unmarshal(e.Result, &res)
	if len(e.Error) > 0 && string(e.Error) != "null" || res.Outcome == "failed" {
		r.deliverTexts(req.sess, req.texts, false)
		return
	}
	r.echo(req.sess, strings.Join(req.texts, "\n\n"))
}

// cancel ends the session's running turn as the editor would: the agent
// answers the editor's prompt as cancelled, and the queued message follows.
func (r *Relay) cancel(sess string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sess}})
	r.log("swetouch", b)
	r.toAgent.line(b)
}

// echo shows the editor what the agent was told.
func (r *Relay) echo(sess, text string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": sess, "update": map[string]any{"sessionUpdate": "user_message_chunk", "content": map[string]any{"type": "text", "text": text}}}})
	r.log("swetouch", b)
	r.toEdit.line(b)
}
