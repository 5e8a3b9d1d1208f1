package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/trajectory"
	"github.com/swetouch/swetouch/user"
)

// An in-place session is the session a relay starts for itself: with
// --records (or --out alone, to record only) `swetouch acp` and `swetouch
// mcp` run their own hub over the directory the agent already works in,
// instead of joining the hub of a `swetouch run`. This is how an editor
// (Zed's agent_servers) or a harness that owns the workspace (Harbor)
// runs a SWE-Touch session: nothing is copied, nothing is verified.

// InPlaceConfig is what an in-place session runs over and with.
type InPlaceConfig struct {
	// Root is the directory the agent already works in; Source names the
	// relay in the trajectory's header; Agent is the peer's command.
	Root, Source string
	Agent        []string
	// Records, Instance, Condition and Match bind the user: a
	// dataset-record-v1 file, the record's instance (default: the only
	// one), its condition (default counter-edit) and match (default
	// reference). With no Records the session records only.
	Records, Instance, Condition, Match string
	// Out is where trajectory.jsonl and session.json go.
	Out string
	// Writer writes the user's messages (nil: the record's own words).
	Writer user.Writer
	// Talk is the conversation the relay holds itself (acp
	// --conversation), made for the workspace it tests.
	Talk func(workspace, out string) Talker
}

// InputError is an in-place session's input that is wrong (a flag's
// value, a records file): the caller's to fix, and nothing was written.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func badInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// InPlace is a started in-place session: the host over the directory,
// its trajectory, and the user's model's tape.
type InPlace struct {
	*Host
	out      string
	instance string
	agent    []string
	traj     *os.File
	userTape *os.File // the user model's calls, when it has one
	talk     Talker   // the conversation, when the relay holds one
}

// StartInPlace checks cfg and starts the hub over cfg.Root. A wrong
// input is an *InputError, and nothing is written.
func StartInPlace(cfg InPlaceConfig) (*InPlace, error) {
	p, root, source, agent := cfg, cfg.Root, cfg.Source, cfg.Agent
	if p.Out == "" {
		return nil, badInput("--records: give --out DIR for the trajectory")
	}
	var rec *task.Record
	if p.Records != "" {
		recs, err := task.LoadRecords(p.Records)
		if err != nil {
			return nil, badInput("%v", err)
		}
		switch {
		case p.Instance != "":
			if rec, err = task.Find(recs, p.Instance); err != nil {
				return nil, badInput("--instance: %v", err)
			}
		case len(recs) == 1:
			rec = recs[0]
		default:
			return nil, badInput("--instance: %s holds %d records; name one", p.Records, len(recs))
		}
	} else if p.Instance != "" || p.Condition != "" || p.Match != "" {
		return nil, badInput("--instance, --condition and --match need --records")
	}
	cond, err := policy.ParseCondition(orVanilla(p.Condition, rec))
	if err != nil {
		return nil, badInput("--condition: %v", err)
	}
	match, err := policy.ParseMatch(orString(p.Match, string(policy.Reference)))
	if err != nil {
		return nil, badInput("--match: %v", err)
	}
	if rec != nil {
		if _, err := user.NewRegion(rec, user.Options{Condition: cond, Match: match}); err != nil {
			return nil, badInput("--condition %s: %v", cond, err)
		}
	}
	w := p.Writer
	if w != nil && rec == nil {
		return nil, badInput("--user-model-url needs --records: a user acts only with a record")
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, badInput("--root: %s is not a directory", root)
	}
	if home, _ := os.UserHomeDir(); root == "/" || root == home {
		// an editor may start its agents anywhere: watching all of / or of
		// home is never what was meant
		return nil, badInput("--root: a session in place watches its workspace, and %s is not one; give --root PROJECT", root)
	}
	if err := os.MkdirAll(p.Out, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(p.Out, "trajectory.jsonl"))
	if err != nil {
		return nil, err
	}
	outAbs, _ := filepath.Abs(p.Out)
	hc := HostConfig{Root: root, Trajectory: f, Ignore: []string{outAbs},
		Header: trajectory.Header{Agent: strings.Join(agent, " "), Source: source, Root: root}}
	s := &InPlace{out: p.Out, agent: agent, traj: f}
	if p.Talk != nil {
		s.talk = p.Talk(root, p.Out)
	}
	var writer user.Writer
	if chat, ok := w.(*user.Chat); ok {
		// its calls kept beside the trajectory, as a run keeps them
		if s.userTape, err = os.Create(filepath.Join(p.Out, UserModelLog)); err != nil {
			f.Close()
			return nil, err
		}
		chat.Record = s.userTape
		writer = chat
	}
	hc.Users = userKinds(rec, user.Options{Condition: cond, Match: match}, writer, "", s.talk)
	if rec != nil {
		hc.Header.Task, s.instance = rec.InstanceID, rec.InstanceID
	}
	if s.Host, err = StartHost(hc); err != nil {
		f.Close()
		os.Remove(f.Name()) // nothing half-done
		if s.userTape != nil {
			s.userTape.Close()
			os.Remove(s.userTape.Name())
		}
		return nil, err
	}
	return s, nil
}

func orVanilla(cond string, rec *task.Record) string {
	if rec == nil {
		return string(policy.Vanilla)
	}
	return orString(cond, string(policy.CounterEdit))
}

func orString(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// sessionSummary is session.json: what happened in an in-place session.
// It is not a result.json: nothing was verified, so score ignores it.
type sessionSummary struct {
	Instance      string          `json:"instance,omitempty"`
	Condition     string          `json:"condition"`
	Match         string          `json:"match,omitempty"`
	Agent         []string        `json:"agent"`
	AgentExit     int             `json:"agent_exit"`
	Steps         int             `json:"steps"`
	Interventions []event.Attempt `json:"interventions"`
	Applied       int             `json:"interventions_applied"`
	Delivered     int             `json:"messages_delivered"`
	Unconfirmed   int             `json:"messages_unconfirmed,omitempty"`
	// Sandbox is always "none": the editor started the agent, so swetouch
	// cannot isolate it (docs/isolation.md).
	Sandbox string `json:"sandbox"`
	// ShellsUnseen are the shells the agent can start by absolute path
	// unseen: all of them, with no sandbox to put the shim there.
	ShellsUnseen []string `json:"shells_unseen,omitempty"`
	// Conversation is the conversation the relay held (acp
	// --conversation): its turns, as a run's result.json has them.
	*result.Conversation
}

// Finish takes the agent's last native edits, ends the trajectory and
// writes session.json.
func (s *InPlace) Finish(exit int, note string) error {
	s.Hub.Disarm("agent finished")
	s.Hub.Idle(context.Background())
	err := s.Close(note)
	s.traj.Close()
	if s.userTape != nil {
		s.userTape.Close()
	}
	st := s.Hub.Status()
	sum := sessionSummary{Instance: s.instance, Condition: orString(s.Condition, string(policy.Vanilla)), Match: s.Match,
		Agent: s.agent, AgentExit: exit, Steps: st.Steps, Interventions: st.Interventions, Sandbox: sandbox.None,
		ShellsUnseen: sandbox.UnseenShells(false)}
	sum.Applied, sum.Delivered = st.Counts()
	if s.talk != nil {
		s.talk.Close()
		sum.Conversation = s.talk.Result()
	}
	sum.Unconfirmed = st.Unconfirmed
	b, _ := json.MarshalIndent(sum, "", "  ")
	if werr := os.WriteFile(filepath.Join(s.out, "session.json"), append(b, '\n'), 0o644); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("closing the session: %w", err)
	}
	return nil
}

// Turns is the conversation's user as the ACP relay plays it: the agent's
// reply recorded, its last native edits taken, then what the user says
// next (Hub.TurnEnd).
func (s *InPlace) Turns(ctx context.Context) func(reply string) (string, bool) {
	return func(reply string) (string, bool) {
		s.Hub.Idle(ctx)
		if reply != "" {
			s.Hub.Record(event.Event{Kind: event.Message, Source: "acp", Actor: event.Agent, Text: reply})
		}
		msgs, end, err := s.Hub.TurnEnd(ctx)
		if err != nil || end || len(msgs) == 0 {
			return "", true
		}
		return MessageText(msgs), false
	}
}

// Conversing reports whether the session holds a conversation (the relay
// plays its turns: Turns).
func (s *InPlace) Conversing() bool { return s.talk != nil }
