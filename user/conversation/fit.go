package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// Session is one real conversation labelled by persona, turn by turn:
// a line of a sessions file (SessionsFormat).
type Session struct {
	ID       string   `json:"id"`
	Personas []string `json:"personas"`
}

// SessionsFormat says what `swetouch personas fit` reads.
const SessionsFormat = `a folder of *.jsonl files, one session a line: {"id": "any", "personas": ["vague/none", "precise/none", …]}, the user's persona at each of its turns (clarity precise|vague, cause none|correct|off-target|wrong), the opening first`

// ReadSessions reads every *.jsonl file of dir (sorted), each line a
// Session; a fault names the file, the line and the field.
func ReadSessions(dir string) ([]Session, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.jsonl files (want %s)", dir, SessionsFormat)
	}
	slices.Sort(files)
	var out []Session
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		off := 0
		for n, line := range bytes.SplitAfter(b, []byte("\n")) {
			base := off
			off += len(line)
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			var s Session
			if err := dec.Decode(&s); err != nil {
				// the line's own offsets, placed in the file
				return nil, jsonerr.Locate(f, b[:base+len(line)], int64(base), "", err)
			}
			if len(s.Personas) == 0 {
				return nil, fmt.Errorf("%s:%d: field personas: none (a session has at least its opening)", f, n+1)
			}
			for i, p := range s.Personas {
				if _, err := ParsePersona(p); err != nil {
					return nil, fmt.Errorf("%s:%d: field personas[%d]: %v", f, n+1, i, err)
				}
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Fit is the transition model of sessions by maximum likelihood: the
// openings' shares, and for each opening, each persona's row of the
// shares of the persona the next turn takes. smoothing adds that weight
// to every move of a row that has data (0: none); a row with no data is
// left out, so a user there keeps their persona (Model.Chain). source
// names the data in the model's provenance.
func Fit(sessions []Session, smoothing float64, source string) (*Model, error) {
	if len(sessions) == 0 {
		return nil, fmt.Errorf("no sessions to fit")
	}
	if smoothing < 0 {
		return nil, fmt.Errorf("smoothing: want 0 or more, got %v", smoothing)
	}
	m := &Model{Opening: map[string]float64{}, Transitions: map[string]map[string]map[string]float64{}}
	openings := map[string]float64{}
	counts := map[string]map[string]map[string]float64{}
	moves := 0
	for _, s := range sessions {
		open := s.Personas[0]
		openings[open]++
		if counts[open] == nil {
			counts[open] = map[string]map[string]float64{}
		}
		for i := 1; i < len(s.Personas); i++ {
			from, to := s.Personas[i-1], s.Personas[i]
			if counts[open][from] == nil {
				counts[open][from] = map[string]float64{}
			}
			counts[open][from][to]++
			moves++
		}
	}
	m.Opening = normalize(openings, 0)
	for open, rows := range counts {
		for from, row := range rows {
			if m.Transitions[open] == nil {
				m.Transitions[open] = map[string]map[string]float64{}
			}
			m.Transitions[open][from] = normalize(row, smoothing)
		}
	}
	m.Provenance = fmt.Sprintf("Fitted by swetouch personas fit (maximum likelihood, smoothing %g) from %d labelled sessions with %d turn-to-turn moves in %s; a persona with no moves after an opening keeps itself.", smoothing, len(sessions), moves, source)
	return m, nil
}

// normalize is counts as shares of their sum, smoothing added to every
// persona's count first (0: only the personas seen).
func normalize(counts map[string]float64, smoothing float64) map[string]float64 {
	out := map[string]float64{}
	sum := 0.0
	for _, p := range Personas {
		c := counts[p]
		if smoothing > 0 {
			c += smoothing
		}
		if c > 0 {
			out[p] = c
			sum += c
		}
	}
	for p := range out {
		out[p] = roundTo(out[p]/sum, 6)
	}
	return out
}

func roundTo(v float64, places int) float64 {
	s := fmt.Sprintf("%.*f", places, v)
	var r float64
	fmt.Sscan(s, &r)
	return r
}

// MarshalModel writes a model as personas.json is written.
func MarshalModel(m *Model) []byte {
	b, _ := json.MarshalIndent(m, "", " ")
	return append(b, '\n')
}

// describeRow is a row for a report line, personas in their fixed order.
func describeRow(row map[string]float64) string {
	var parts []string
	for _, p := range Personas {
		if w, ok := row[p]; ok {
			parts = append(parts, fmt.Sprintf("%s %.3f", p, w))
		}
	}
	return strings.Join(parts, ", ")
}

// Summary is one line per opening: its share and how many rows it has.
func (m *Model) Summary() []string {
	var out []string
	for _, p := range Personas {
		w, ok := m.Opening[p]
		if !ok {
			continue
		}
		out = append(out, fmt.Sprintf("%s opens %.1f%%; %d rows: %s", p, 100*w, len(m.Transitions[p]), describeRow(m.Transitions[p][p])))
	}
	return out
}
