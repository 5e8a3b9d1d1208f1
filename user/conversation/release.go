package conversation

import (
	"regexp"
	"slices"
	"strings"
)

// Turn is what the release policy sees when the user speaks: the turn,
// the user's persona then, the phase under way, the agent's last reply,
// and which tests fail now.
type Turn struct {
	N       int
	Persona string
	Phase   string
	Reply   string
	Failing []string
	// Focus is the failing test to speak of first (a reviewed judge's
	// choice; "" for the pool's order).
	Focus string
	// Guidance is the reviewed judge's guidance: where the tests are
	// silent (no unsaid symptom of a failing test) it chooses among the
	// boundaries and edge cases (guided).
	Guidance string
}

// Selection is what the user says one turn: pool items, and the agent's
// questions no item answers (the user says they do not know).
type Selection struct {
	Items   []Item
	Unknown []string
	// Edited are the files the user changed during the turn (a
	// Counter-Edit): the user knows what they did.
	Edited []string
	// Guided says the judge's guidance chose the items.
	Guided bool
}

// Release is the user's release policy over one package: what each turn
// selects from the pool, and what has been said so far. It answers the
// agent's direct questions first; else it names a failure that blocks
// acceptance (a symptom of a failing test, as clearly as the persona
// speaks, with the cause the persona believes when the pool has one);
// then a core boundary; then a secondary edge case. It never says
// anything outside the pool.
type Release struct {
	pkg          *Package
	said         map[string]bool
	contradicted map[string]int // a played cause, by how often the agent refuted it
}

// NewRelease starts the policy over a package.
func NewRelease(p *Package) *Release {
	return &Release{pkg: p, said: map[string]bool{}, contradicted: map[string]int{}}
}

// weakAfter is how many times the agent must contradict a played wrong
// or off-target cause, with evidence, before the user lets it go.
const weakAfter = 2

// Select picks this turn's items and marks them said.
func (r *Release) Select(t Turn) Selection {
	r.notice(t.Reply)
	var sel Selection
	if qs := questions(t.Reply); len(qs) > 0 {
		for _, q := range qs {
			if it, ok := r.answer(t.Phase, q); ok {
				if !slices.ContainsFunc(sel.Items, func(x Item) bool { return x.ID == it.ID }) {
					sel.Items = append(sel.Items, it)
				}
			} else {
				sel.Unknown = append(sel.Unknown, q)
			}
		}
		r.mark(sel.Items)
		return sel
	}
	p, _ := ParsePersona(t.Persona)
	s, ok := r.symptom(t.Phase, p.Clarity, []string{t.Focus})
	if !ok {
		s, ok = r.symptom(t.Phase, p.Clarity, t.Failing)
	}
	if ok {
		sel.Items = append(sel.Items, s)
		if c, ok := r.cause(t.Phase, p.Cause); ok {
			sel.Items = append(sel.Items, c)
		}
	} else if g, ok := r.guided(t.Phase, t.Guidance); ok {
		sel.Items, sel.Guided = append(sel.Items, g), true
	} else if b, ok := r.next(t.Phase, Boundary); ok {
		sel.Items = append(sel.Items, b)
	} else if e, ok := r.next(t.Phase, Edge); ok {
		sel.Items = append(sel.Items, e)
	}
	r.mark(sel.Items)
	return sel
}

func (r *Release) mark(items []Item) {
	for _, it := range items {
		r.said[it.ID] = true
	}
}

// answer is the item a question asks about: a fact of the phase whose
// about words the question holds, else any item of the phase's whose
// about words it holds.
func (r *Release) answer(phase, q string) (Item, bool) {
	words := wordSet(q)
	for _, kind := range []string{Fact, ""} {
		for _, it := range r.pkg.Pool {
			if it.Phase != phase || kind != "" && it.Kind != kind || len(it.About) == 0 {
				continue
			}
			for _, a := range it.About {
				if words[strings.ToLower(a)] {
					return it, true
				}
			}
		}
	}
	return Item{}, false
}

// symptom is the first unsaid symptom of a failing test, in the
// persona's clarity when the pool has one, else in the other.
func (r *Release) symptom(phase, clarity string, failing []string) (Item, bool) {
	for _, want := range []string{clarity, ""} {
		for _, it := range r.pkg.Pool {
			if it.Phase != phase || it.Kind != Symptom || r.said[it.ID] || want != "" && it.Clarity != want {
				continue
			}
			if slices.ContainsFunc(it.Tests, func(id string) bool { return slices.Contains(failing, id) }) {
				return it, true
			}
		}
	}
	return Item{}, false
}

// cause is what the persona volunteers of the cause: nothing for none;
// else the first unsaid cause of that veracity, unless the agent has
// refuted it often enough.
func (r *Release) cause(phase, belief string) (Item, bool) {
	if belief == "none" {
		return Item{}, false
	}
	for _, it := range r.pkg.Pool {
		if it.Phase == phase && it.Kind == Cause && it.Veracity == belief && !r.said[it.ID] && r.contradicted[it.ID] < weakAfter {
			return it, true
		}
	}
	return Item{}, false
}

// next is the first unsaid item of a kind.
func (r *Release) next(phase, kind string) (Item, bool) {
	for _, it := range r.pkg.Pool {
		if it.Phase == phase && it.Kind == kind && !r.said[it.ID] {
			return it, true
		}
	}
	return Item{}, false
}

// negation marks a reply that disputes something.
var negation = regexp.MustCompile(`(?i)\b(not|isn't|isnt|doesn't|doesnt|no longer|wrong|instead)\b`)

// notice counts the agent's contradictions of played wrong or off-target
// causes: a reply that disputes and shares at least two of the cause's
// longer words with it.
func (r *Release) notice(reply string) {
	if !negation.MatchString(reply) {
		return
	}
	words := wordSet(reply)
	for _, it := range r.pkg.Pool {
		if it.Kind != Cause || it.Veracity == "correct" || !r.said[it.ID] {
			continue
		}
		shared := 0
		for w := range wordSet(it.Text) {
			if len(w) >= 5 && words[w] {
				shared++
			}
		}
		if shared >= 2 {
			r.contradicted[it.ID]++
		}
	}
}

var sentence = regexp.MustCompile(`[^.!?\n]*\?`)

// questions are the reply's sentences that end with a question mark.
func questions(reply string) []string {
	var out []string
	for _, q := range sentence.FindAllString(reply, -1) {
		if q = strings.TrimSpace(q); len(q) > 1 {
			out = append(out, q)
		}
	}
	return out
}

var word = regexp.MustCompile(`[A-Za-z0-9_]+`)

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range word.FindAllString(strings.ToLower(s), -1) {
		out[w] = true
	}
	return out
}
