package conversation

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/jsonerr"
)

// A persona is how the user speaks one turn: how clearly they describe
// the symptom, and what they believe of its cause.
type persona struct {
	Clarity string // precise, vague
	Cause   string // none, correct, off-target, wrong
}

// Personas are UserSWE's eight, as "clarity/cause".
var Personas = func() []string {
	var out []string
	for _, c := range []string{"precise", "vague"} {
		for _, k := range []string{"none", "correct", "off-target", "wrong"} {
			out = append(out, c+"/"+k)
		}
	}
	return out
}()

// ParsePersona checks a persona's name.
func ParsePersona(name string) (persona, error) {
	if !slices.Contains(Personas, name) {
		return persona{}, fmt.Errorf("unknown persona %q (want one of %s)", name, strings.Join(Personas, ", "))
	}
	c, k, _ := strings.Cut(name, "/")
	return persona{c, k}, nil
}

//go:embed personas.json
var defaultModel []byte

// Model is a persona transition model: how openings are drawn, and one
// transition matrix per opening persona (the chain's later turns are
// conditioned on how the user opened).
type Model struct {
	Opening     map[string]float64                       `json:"opening"`
	Transitions map[string]map[string]map[string]float64 `json:"transitions"` // opening → from → to → weight
	Provenance  string                                   `json:"provenance"`
}

// DefaultModel is the model swetouch ships (personas.json; its basis is
// in its provenance field and in personas.md).
func DefaultModel() *Model {
	m, err := ParseModel(defaultModel, "personas.json")
	if err != nil {
		panic(err) // the shipped file is checked by its test
	}
	return m
}

// LoadModel reads a transition model file (--personas).
func LoadModel(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(b, path)
}

// ParseModel reads a transition model and checks that every persona it
// names is one and every row has weight; name is used in errors.
func ParseModel(b []byte, name string) (*Model, error) {
	var m Model
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, jsonerr.Locate(name, b, 0, "", err)
	}
	if err := checkRow(m.Opening); err != nil {
		return nil, fmt.Errorf("%s: field opening: %v", name, err)
	}
	for op, rows := range m.Transitions {
		if _, err := ParsePersona(op); err != nil {
			return nil, fmt.Errorf("%s: field transitions: %v", name, err)
		}
		for from, row := range rows {
			if _, err := ParsePersona(from); err != nil {
				return nil, fmt.Errorf("%s: field transitions.%s: %v", name, op, err)
			}
			if err := checkRow(row); err != nil {
				return nil, fmt.Errorf("%s: field transitions.%s.%s: %v", name, op, from, err)
			}
		}
	}
	return &m, nil
}

func checkRow(row map[string]float64) error {
	sum := 0.0
	for p, w := range row {
		if _, err := ParsePersona(p); err != nil {
			return err
		}
		if w < 0 {
			return fmt.Errorf("%s: negative weight %v", p, w)
		}
		sum += w
	}
	if sum <= 0 {
		return fmt.Errorf("no weight")
	}
	return nil
}

// Chain draws a persona chain of n turns from seed: the opening, then
// each turn from the previous one's row of the opening's matrix (the user
// keeps their persona when the matrix has no row for it). The same seed
// gives the same chain: every agent on a task meets the same user.
func (m *Model) Chain(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x5357_4554_4f55_4348)) // "SWETOUCH"
	if n < 1 {
		return nil
	}
	chain := []string{draw(r, m.Opening)}
	for len(chain) < n {
		last := chain[len(chain)-1]
		row := m.Transitions[chain[0]][last]
		if len(row) == 0 {
			chain = append(chain, last)
			continue
		}
		chain = append(chain, draw(r, row))
	}
	return chain
}

// draw picks a key by weight, walking the keys in a fixed order.
func draw(r *rand.Rand, row map[string]float64) string {
	keys := make([]string, 0, len(row))
	sum := 0.0
	for _, p := range Personas {
		if w, ok := row[p]; ok && w > 0 {
			keys = append(keys, p)
			sum += w
		}
	}
	x := r.Float64() * sum
	for _, k := range keys {
		if x < row[k] {
			return k
		}
		x -= row[k]
	}
	return keys[len(keys)-1]
}
