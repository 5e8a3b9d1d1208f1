// Package trajectory is the file a run writes of what happened: a header
// line, then one event a line, flushed as each is recorded, so a crash
// leaves at most a truncated last line. Every part that records, replays,
// scores or draws a run reads it through this package, which depends on
// the event vocabulary alone.
package trajectory

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/internal/fastjson"
)

// Format and Version identify the trajectory format in its header line.
const (
	Format  = "swetouch-trajectory"
	Version = 1
)

// Header is the first line of a trajectory.
type Header struct {
	Format    string            `json:"format"`
	Version   int               `json:"version"`
	Task      string            `json:"task,omitempty"`
	Condition string            `json:"condition,omitempty"`
	Agent     string            `json:"agent,omitempty"`
	Seed      int64             `json:"seed,omitempty"`
	Source    string            `json:"source,omitempty"`
	Tools     map[string]string `json:"tools,omitempty"`
	// Root is where the session's workspace was (a temporary folder, or a
	// container's /testbed): a replay maps it to its own workspace.
	Root string `json:"root,omitempty"`
	// CommandTimeout is the limit, in seconds, each command ran under when
	// it was recorded (mini-swe-agent's environment timeout): a replay
	// gives each the same, so a command killed then is killed again.
	CommandTimeout float64 `json:"command_timeout_s,omitempty"`
}

// Writer appends events to a trajectory. Each event is written as one line
// and flushed at once, so a crash leaves at most a truncated last line.
type Writer struct {
	w   *bufio.Writer
	seq int64
	buf []byte // an event's line, written by hand (Event.AppendJSON)
}

// NewWriter writes the header and returns a writer for the events.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Format, h.Version = Format, Version
	tw := &Writer{w: bufio.NewWriter(w)}
	if err := tw.line(h); err != nil {
		return nil, err
	}
	return tw, tw.w.Flush()
}

// Write appends an event; a zero Seq is assigned the next number. Seqs must
// strictly increase.
func (tw *Writer) Write(ev event.Event) error {
	if ev.Seq == 0 {
		ev.Seq = tw.seq + 1
	}
	if ev.Seq <= tw.seq {
		return fmt.Errorf("trajectory: seq %d after %d", ev.Seq, tw.seq)
	}
	tw.seq = ev.Seq
	if b, ok := tw.appendLean(ev); ok {
		tw.buf = append(b, '\n')
		tw.w.Write(tw.buf)
	} else if err := tw.line(ev); err != nil {
		return err
	}
	return tw.w.Flush()
}

// appendLean is ev's line written by hand into tw's buffer, false where
// it is left to encoding/json (and always with SWETOUCH_REFERENCE=1).
func (tw *Writer) appendLean(ev event.Event) ([]byte, bool) {
	if fastjson.Reference() {
		return nil, false
	}
	return ev.AppendJSON(tw.buf[:0])
}

func (tw *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tw.w.Write(b)
	return tw.w.WriteByte('\n')
}

// Trajectory is a read trajectory.
type Trajectory struct {
	Header Header
	Events []event.Event
	// Truncated is set when the last line was cut short (a crash while
	// writing) and was dropped.
	Truncated bool
}

// ParseError says where a trajectory is malformed.
type ParseError struct {
	Name string
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// Read reads a trajectory. A last line without its newline that does not
// parse is taken as truncated and dropped; any other bad line is an error
// naming the line.
func Read(r io.Reader, name string) (*Trajectory, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	t := &Trajectory{}
	lineNo := 0
	var prevSeq int64
	for len(data) > 0 {
		lineNo++
		line := data
		last := true
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, last = data[:i], data[i+1:], false
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if lineNo == 1 {
			if err := strictUnmarshal(line, &t.Header); err != nil {
				return nil, &ParseError{name, 1, fmt.Errorf("header: %w", err)}
			}
			if t.Header.Format != Format {
				return nil, &ParseError{name, 1, fmt.Errorf("header: format %q, want %q", t.Header.Format, Format)}
			}
			if t.Header.Version < 1 || t.Header.Version > Version {
				return nil, &ParseError{name, 1, fmt.Errorf("header: unsupported version %d", t.Header.Version)}
			}
			continue
		}
		var ev event.Event
		if err := strictUnmarshal(line, &ev); err != nil {
			if last {
				t.Truncated = true
				break
			}
			return nil, &ParseError{name, lineNo, err}
		}
		if ev.Seq <= prevSeq {
			return nil, &ParseError{name, lineNo, fmt.Errorf("seq %d does not follow %d", ev.Seq, prevSeq)}
		}
		prevSeq = ev.Seq
		t.Events = append(t.Events, ev)
	}
	if lineNo == 0 {
		return nil, &ParseError{name, 1, fmt.Errorf("empty trajectory: no header")}
	}
	return t, nil
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

// maxInline is the size up to which an output is kept whole in an event.
const maxInline = 16 << 10

// NewOutput keeps an output whole when small, else its head and tail with
// the size and hash of the whole.
func NewOutput(text string) *event.Output {
	if text == "" {
		return nil
	}
	if len(text) <= maxInline {
		return &event.Output{Text: text}
	}
	sum := sha256.Sum256([]byte(text))
	return &event.Output{
		Head:   text[:maxInline/2],
		Tail:   text[len(text)-maxInline/2:],
		Elided: true,
		Bytes:  len(text),
		SHA256: hex.EncodeToString(sum[:]),
	}
}

// ReadFile reads the trajectory at path (errors name it).
func ReadFile(path string) (*Trajectory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// WriteFile writes a trajectory, its header and every event, to path.
func WriteFile(path string, tr *Trajectory) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := NewWriter(f, tr.Header)
	if err != nil {
		f.Close()
		return err
	}
	for _, ev := range tr.Events {
		if err := w.Write(ev); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
