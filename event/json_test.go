package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// FuzzAppendJSON: AppendJSON writes what json.Marshal writes for an
// event, of every shape the hub records (Attempt and Raw aside).
func FuzzAppendJSON(f *testing.F) {
	f.Add(int64(7), int64(0), "shell", "agent", "edit", "sed -i 's/a/b/' x.py", "", "@@ -1 +1 @@\n-a\n+b\n", "", "", "x.py", 3, 9, uint16(0x1ff), "ok\n", 2)
	f.Add(int64(1), int64(1764633600123456789), "mcp", "user", "message", "", "read_text_file", "", "<keep & this>", "note \u2028", "", 0, 0, uint16(0), "", 0)
	f.Add(int64(-3), int64(-62135596800000000), "", "", "", "\xff", "", "", "", "", "a\"b", -1, 0, uint16(0x3c), "\x00", -5)
	f.Fuzz(func(t *testing.T, seq, nanos int64, source, actor, kind, command, tool, diff, text, note, path string, start, end int, flags uint16, out string, n int) {
		ev := Event{Seq: seq, Source: source, Actor: Actor(actor), Kind: Kind(kind), Command: command, Tool: tool, Diff: diff, Text: text, Note: note, Action: n}
		if flags&1 != 0 {
			ev.Time = time.Unix(0, nanos).In(time.FixedZone("z", int(n%50000)))
		}
		if flags&2 != 0 {
			ev.Scopes = []Scope{{Path: path, Start: start, End: end, Precision: Precision(kind)}, {}}
		}
		if flags&4 != 0 {
			ev.Scopes = []Scope{}
		}
		if flags&8 != 0 {
			ev.Step = &start
		}
		if flags&16 != 0 {
			ev.RecordedStep = &end
		}
		if flags&32 != 0 {
			ev.Exit = &n
		}
		if flags&64 != 0 {
			ev.Output = &Output{Text: out}
		}
		if flags&128 != 0 {
			ev.Output = &Output{Head: out, Tail: text, Elided: flags&256 != 0, Bytes: n, SHA256: note}
		}
		if flags&512 != 0 {
			ev.Output = &Output{}
		}
		want, err := json.Marshal(ev)
		got, ok := ev.AppendJSON(nil)
		if !ok {
			if err == nil {
				t.Fatalf("%+v: left to encoding/json, which writes it", ev)
			}
			return
		}
		if err != nil {
			t.Fatalf("%+v: written by hand, json.Marshal fails: %v", ev, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%+v:\n got %s\nwant %s", ev, got, want)
		}
	})
}

// TestAppendJSONLeaves: an attempt and raw traffic are left to
// encoding/json.
func TestAppendJSONLeaves(t *testing.T) {
	for _, ev := range []Event{{Kind: Intervention, Attempt: &Attempt{Order: 1}}, {Kind: Traffic, Raw: json.RawMessage(`{}`)}} {
		if _, ok := ev.AppendJSON(nil); ok {
			t.Errorf("%+v written by hand", ev)
		}
	}
}

// TestAppendJSONKnowsEveryField: a field added to Event, Scope or Output
// must be written by AppendJSON too (or left to encoding/json, as
// Attempt and Raw are); this lists what it writes.
func TestAppendJSONKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{Event{}, []string{"Seq", "Time", "Source", "Actor", "Kind", "Scopes", "Step", "RecordedStep", "Action", "Command", "Tool", "Exit", "Output", "Diff", "Text", "Note", "Attempt", "Raw"}},
		{Scope{}, []string{"Path", "Start", "End", "Precision"}},
		{Output{}, []string{"Text", "Head", "Tail", "Elided", "Bytes", "SHA256"}},
	} {
		typ := reflect.TypeOf(c.v)
		var fields []string
		for i := range typ.NumField() {
			fields = append(fields, typ.Field(i).Name)
		}
		if !slices.Equal(fields, c.known) {
			t.Errorf("%s has fields %v; AppendJSON writes %v: teach it the new ones, in order", typ.Name(), fields, c.known)
		}
	}
}
