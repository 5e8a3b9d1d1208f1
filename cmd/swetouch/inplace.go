package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/replay"
	"github.com/swetouch/swetouch/result"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
	"github.com/swetouch/swetouch/task"
	"github.com/swetouch/swetouch/user"
)

// inPlace is the session a relay starts for itself: with --records (or
// --out alone, to record only) `swetouch acp` and `swetouch mcp` run their
// own hub over the directory the agent already works in, instead of
// joining the hub of a `swetouch run`. This is how an editor (Zed's
// agent_servers) or a harness that owns the workspace (Harbor) runs a
// SWE-Touch session: nothing is copied, nothing is verified.
type inPlace struct {
	records, instance, condition, match, out string
	userURL, userModel                       string
	// talk is the conversation a relay holds itself (acp
	// --conversation), made for the workspace it tests
	talk func(workspace, out string) session.Talker
}

func (p *inPlace) flags(fs *pflag.FlagSet) {
	fs.StringVar(&p.records, "records", "", "run a session in place: SWE-Touch dataset-record-v1 JSONL binding the Counter-Edit")
	fs.StringVar(&p.instance, "instance", "", "with --records: the record's instance id (default: the only record)")
	fs.StringVar(&p.condition, "condition", "", "with --records: vanilla, counter-edit, co-edit, message-only or code-only (default counter-edit)")
	fs.StringVar(&p.match, "match", "", "with --records: reference or precise (default reference)")
	fs.StringVar(&p.out, "out", "", "run a session in place and write trajectory.jsonl and session.json here")
	fs.StringVar(&p.userURL, "user-model-url", "", "with --records: an OpenAI-compatible chat-completions base URL whose model writes the user's messages (key: $SWETOUCH_USER_API_KEY)")
	fs.StringVar(&p.userModel, "user-model", "", "with --user-model-url: the model's name")
}

// wanted reports whether the flags ask for a session in place.
func (p *inPlace) wanted() bool { return p.records != "" || p.out != "" }

// socket is the hub a relay reports to and, for a session in place, the
// session it started: its own when the flags ask for one, else the one
// --session names, else $SWETOUCH_SOCKET's ("" for none).
func (p *inPlace) socket(sock, root, source string, agent []string) (string, *inPlaceSession, error) {
	if !p.wanted() {
		if sock == "" {
			sock = os.Getenv("SWETOUCH_SOCKET")
		}
		return sock, nil, nil
	}
	own, err := p.start(sock, root, source, agent)
	if err != nil {
		return "", nil, err
	}
	return own.Socket, own, nil
}

// inPlaceSession is a started in-place session.
type inPlaceSession struct {
	*session.Host
	out      string
	instance string
	agent    []string
	traj     *os.File
	userTape *os.File       // the user model's calls, when it has one
	talk     session.Talker // the conversation, when the relay holds one
}

// start checks the flags and starts the hub over root. Bad flags are
// usage errors, and nothing is written.
func (p *inPlace) start(sock, root, source string, agent []string) (*inPlaceSession, error) {
	if sock != "" {
		return nil, badInput("give --session (join a run's hub) or --records/--out (a session in place), not both")
	}
	if p.out == "" {
		return nil, badInput("--records: give --out DIR for the trajectory")
	}
	var rec *task.Record
	if p.records != "" {
		recs, err := task.LoadRecords(p.records)
		if err != nil {
			return nil, badInput("%v", err)
		}
		switch {
		case p.instance != "":
			if rec, err = task.Find(recs, p.instance); err != nil {
				return nil, badInput("--instance: %v", err)
			}
		case len(recs) == 1:
			rec = recs[0]
		default:
			return nil, badInput("--instance: %s holds %d records; name one", p.records, len(recs))
		}
	} else if p.instance != "" || p.condition != "" || p.match != "" {
		return nil, badInput("--instance, --condition and --match need --records")
	}
	cond, err := policy.ParseCondition(orVanilla(p.condition, rec))
	if err != nil {
		return nil, badInput("--condition: %v", err)
	}
	match, err := policy.ParseMatch(orString(p.match, string(policy.Reference)))
	if err != nil {
		return nil, badInput("--match: %v", err)
	}
	if rec != nil {
		if _, err := session.NewUser(rec, user.Options{Condition: cond, Match: match}); err != nil {
			return nil, badInput("--condition %s: %v", cond, err)
		}
	}
	w, err := userModelFlag(p.userURL, p.userModel)
	if err != nil {
		return nil, err
	}
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
	if err := os.MkdirAll(p.out, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(p.out, "trajectory.jsonl"))
	if err != nil {
		return nil, err
	}
	outAbs, _ := filepath.Abs(p.out)
	hc := session.HostConfig{Root: root, Record: rec, Condition: cond, Match: match, Trajectory: f, Ignore: []string{outAbs},
		Header: replay.Header{Agent: strings.Join(agent, " "), Source: source, Root: root}}
	s := &inPlaceSession{out: p.out, agent: agent, traj: f}
	if p.talk != nil {
		s.talk = p.talk(root, p.out)
		hc.User = s.talk
	}
	if chat, ok := w.(*user.Chat); ok {
		// its calls kept beside the trajectory, as a run keeps them
		if s.userTape, err = os.Create(filepath.Join(p.out, session.UserModelLog)); err != nil {
			f.Close()
			return nil, err
		}
		chat.Record = s.userTape
		hc.Writer = chat
	}
	if rec != nil {
		hc.Header.Task, s.instance = rec.InstanceID, rec.InstanceID
	}
	if s.Host, err = session.Start(hc); err != nil {
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

// finish takes the agent's last native edits, ends the trajectory and
// writes session.json.
func (s *inPlaceSession) finish(exit int, note string) error {
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

// turns is the conversation's user as the ACP relay plays it: the agent's
// reply recorded, its last native edits taken, then what the user says
// next (Hub.TurnEnd).
func (s *inPlaceSession) turns(ctx context.Context) func(reply string) (string, bool) {
	return func(reply string) (string, bool) {
		s.Hub.Idle(ctx)
		if reply != "" {
			s.Hub.Record(event.Event{Kind: event.Message, Source: "acp", Actor: event.Agent, Text: reply})
		}
		msgs, end, err := s.Hub.TurnEnd(ctx)
		if err != nil || end || len(msgs) == 0 {
			return "", true
		}
		return session.MessageText(msgs), false
	}
}
