package conversation_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/user/conversation"
)

// TestFit (U7): sessions drawn from a known model, written as a sessions
// folder and read back, fit that model: every opening share and every
// transition seen often enough within sampling error.
func TestFit(t *testing.T) {
	known := conversation.DefaultModel()
	dir := t.TempDir()
	var b strings.Builder
	const n = 20000
	for i := range n {
		line, _ := json.Marshal(conversation.Session{ID: fmt.Sprint(i), Personas: known.Chain(uint64(i), 8)})
		b.Write(append(line, '\n'))
		if i == n/2 {
			os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(b.String()), 0o644)
			b.Reset()
		}
	}
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(b.String()), 0o644)
	sessions, err := conversation.ReadSessions(dir)
	if err != nil || len(sessions) != n {
		t.Fatalf("%d sessions, %v", len(sessions), err)
	}
	fit, err := conversation.Fit(sessions, 0, dir)
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range known.Opening {
		if math.Abs(fit.Opening[p]-w) > 0.015 {
			t.Errorf("opening %s: fitted %.3f, known %.3f", p, fit.Opening[p], w)
		}
	}
	// rows by how often they were left: a row left m times has a share's
	// standard error of at most 0.5/√m; four of them is the bound
	checked := 0
	for open, rows := range known.Transitions {
		for from, row := range rows {
			m := 0
			for _, s := range sessions {
				for i := 1; i < len(s.Personas); i++ {
					if s.Personas[0] == open && s.Personas[i-1] == from {
						m++
					}
				}
			}
			if m < 400 {
				continue
			}
			checked++
			for to, w := range row {
				if d := math.Abs(fit.Transitions[open][from][to] - w); d > 2/math.Sqrt(float64(m)) {
					t.Errorf("%s: %s → %s fitted %.3f, known %.3f (%d moves)", open, from, to, fit.Transitions[open][from][to], w, m)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d rows seen often enough to check", checked)
	}
	if !strings.Contains(fit.Provenance, "20000 labelled sessions") {
		t.Errorf("provenance %q", fit.Provenance)
	}
	// the fitted model is one --personas reads
	path := filepath.Join(t.TempDir(), "fitted.json")
	os.WriteFile(path, conversation.MarshalModel(fit), 0o644)
	if _, err := conversation.LoadModel(path); err != nil {
		t.Error(err)
	}
}

// TestReadSessionsErrors: a bad line names the file, the line and the
// field.
func TestReadSessionsErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"id": "a", "personas": ["vague/none"]}` + "\n" + `{"id": "b", "personas": ["vague/none", "loud/wrong"]}`, "s.jsonl:2: field personas[1]: unknown persona"},
		{`{"id": "a", "personas": []}`, "s.jsonl:1: field personas: none"},
		{"\n" + `{"id": "a", "persona": ["vague/none"]}`, `s.jsonl:2: json: unknown field "persona"`},
		{`{"id": "a", "personas": "vague/none"}`, "s.jsonl:1: field personas: want []string"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(c.body), 0o644)
		if _, err := conversation.ReadSessions(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
