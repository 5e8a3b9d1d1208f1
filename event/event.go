package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// Kind says what an event is about.
type Kind string

// The kinds of events. Commands and tool calls reduce to read, edit, test or
// run; the rest are produced by the hub, the harness and the verifier.
const (
	Read         Kind = "read"
	Edit         Kind = "edit"
	Test         Kind = "test"
	Run          Kind = "run"
	Message      Kind = "message"
	Intervention Kind = "intervention"
	Turn         Kind = "turn"
	Session      Kind = "session"
	Verify       Kind = "verify"
	// Traffic is one protocol message a relay passed (ACP): Raw holds it,
	// the actor says who sent it (agent, user for the editor, harness for
	// swetouch's own). It is a record, not an action.
	Traffic Kind = "traffic"
)

// Precision says whether a scope names exact lines or only a file.
type Precision string

// Scope precisions.
const (
	Line Precision = "line"
	File Precision = "file"
)

// Scope is a region of one file: repo-relative cleaned path and, for line
// precision, a 1-based inclusive range. A file-precision scope has no range
// and stands for the whole file.
type Scope struct {
	Path      string    `json:"path,omitempty"`
	Start     int       `json:"start,omitempty"`
	End       int       `json:"end,omitempty"`
	Precision Precision `json:"precision,omitempty"`
}

// FileScope is a whole-file scope of path.
func FileScope(path string) Scope { return Scope{Path: path, Precision: File} }

// LineScope is the lines start..end of path.
func LineScope(path string, start, end int) Scope {
	return Scope{Path: path, Start: start, End: end, Precision: Line}
}

// Whole reports whether the scope covers the whole file.
func (s Scope) Whole() bool { return s.Precision != Line }

// Contains reports whether line n of the scope's file is inside the scope.
func (s Scope) Contains(n int) bool { return s.Whole() || (n >= s.Start && n <= s.End) }

// Overlaps reports whether the scope shares at least one line with
// start..end of the same file. A whole-file scope overlaps everything.
func (s Scope) Overlaps(start, end int) bool {
	if s.Whole() {
		return true
	}
	return max(s.Start, start) <= min(s.End, end)
}

func (s Scope) String() string {
	if s.Whole() {
		return s.Path
	}
	return fmt.Sprintf("%s:%d-%d", s.Path, s.Start, s.End)
}

// Actor is who caused an event.
type Actor string

// Actors.
const (
	Agent   Actor = "agent"
	User    Actor = "user"
	Harness Actor = "harness"
)

// Output keeps a command's observation. Large outputs keep only a head and a
// tail inline, with the size and hash of the whole.
type Output struct {
	Text   string `json:"text,omitempty"`
	Head   string `json:"head,omitempty"`
	Tail   string `json:"tail,omitempty"`
	Elided bool   `json:"elided,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// Attempt is an intervention attempt and its outcome.
type Attempt struct {
	Order    int    `json:"order"`
	Scenario string `json:"scenario,omitempty"`
	Trigger  string `json:"trigger,omitempty"`
	Outcome  string `json:"outcome"` // applied, noop, failed, skipped
	Why      string `json:"why,omitempty"`
	Message  string `json:"message,omitempty"`
	// MessageSource is where the message came from: "seed" (the
	// record's deterministic text), "llm", "deterministic_fallback".
	MessageSource string `json:"message_source,omitempty"`
	// MessageModel wrote the message from the prompt of PromptSHA256;
	// MessageRaw is its text as written; FallbackReason (llm_failed,
	// llm_quality_failed) says why the deterministic text went instead,
	// and FallbackWhy in what way.
	MessageModel   string `json:"message_model,omitempty"`
	PromptSHA256   string `json:"message_prompt_sha256,omitempty"`
	MessageRaw     string `json:"message_raw,omitempty"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	FallbackWhy    string `json:"fallback_why,omitempty"`
	PatchID        string `json:"patch_id,omitempty"`
	// Tries is how many times in a row the round was tried and came to
	// this same outcome (a Counter-Edit that cannot land is tried again
	// at each action while its round is due); 0 for once. A result lists
	// a round's repeated outcome once, with its count; the trajectory
	// keeps every try.
	Tries int `json:"tries,omitempty"`
}

// Event is one thing that happened in a session. Seq is assigned by whoever
// orders events (the hub, an importer) and strictly increases.
type Event struct {
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"time,omitzero"`
	Source string    `json:"source,omitempty"`
	Actor  Actor     `json:"actor,omitempty"`
	Kind   Kind      `json:"kind"`
	Scopes []Scope   `json:"scopes,omitempty"`
	Step   *int      `json:"step,omitempty"`
	// RecordedStep is, in a replay, the step of the recording the event's
	// action re-drives: the recording counts every assistant turn (format
	// errors included), the replay only the actions that ran.
	RecordedStep *int     `json:"recorded_step,omitempty"`
	Action       int      `json:"action,omitempty"`
	Command      string   `json:"command,omitempty"`
	Tool         string   `json:"tool,omitempty"`
	Exit         *int     `json:"exit,omitempty"`
	Output       *Output  `json:"output,omitempty"`
	Diff         string   `json:"diff,omitempty"`
	Text         string   `json:"text,omitempty"`
	Note         string   `json:"note,omitempty"`
	Attempt      *Attempt `json:"attempt,omitempty"`
	// Raw is a traffic event's message as it was sent, when it was JSON
	// and not too large (else Output keeps it, elided).
	Raw json.RawMessage `json:"raw,omitempty"`
}
