package trajectory

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
)

// TestRoundTrip: what the writer writes the reader reads back, seq numbered
// in order; a line that is not an event is an error naming its line.
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Format: Format, Version: Version, Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat a.py", "sed -i s/x/y/ a.py"} {
		if err := w.Write(event.Event{Kind: event.Run, Actor: event.Agent, Command: cmd, Output: NewOutput("ok\n")}); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := Read(bytes.NewReader(b.Bytes()), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Task != "t" || len(tr.Events) != 2 || tr.Events[1].Command != "sed -i s/x/y/ a.py" || tr.Events[0].Seq >= tr.Events[1].Seq {
		t.Fatalf("read back %+v", tr)
	}
	_, err = Read(strings.NewReader(b.String()+"{not json\n"), "t.jsonl")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || pe.Name != "t.jsonl" {
		t.Fatalf("a bad line: %v", err)
	}
}
