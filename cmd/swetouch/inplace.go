package main

import (
	"errors"
	"os"

	"github.com/swetouch/swetouch/run"

	"github.com/spf13/pflag"
)

// inPlace binds the flags of a session a relay starts for itself
// (run.StartInPlace).
type inPlace struct {
	records, instance, condition, match, out string
	userURL, userModel                       string
	// talk is the conversation a relay holds itself (acp
	// --conversation), made for the workspace it tests
	talk func(workspace, out string) run.Talker
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
func (p *inPlace) socket(sock, root, source string, agent []string) (string, *run.InPlace, error) {
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

// start starts the in-place session the flags ask for over root; a wrong
// flag is a usage error, and nothing is written.
func (p *inPlace) start(sock, root, source string, agent []string) (*run.InPlace, error) {
	if sock != "" {
		return nil, badInput("give --session (join a run's hub) or --records/--out (a session in place), not both")
	}
	w, err := userModelFlag(p.userURL, p.userModel)
	if err != nil {
		return nil, err
	}
	s, err := run.StartInPlace(run.InPlaceConfig{Root: root, Source: source, Agent: agent, Records: p.records, Instance: p.instance,
		Condition: p.condition, Match: p.match, Out: p.out, Writer: w, Talk: p.talk})
	var ie *run.InputError
	if errors.As(err, &ie) {
		return nil, usageError{ie}
	}
	return s, err
}
