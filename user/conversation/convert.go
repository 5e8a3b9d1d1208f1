package conversation

import (
	"fmt"
	"hash/fnv"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Source is what a single-turn task gives a conversation: its issue text,
// which of its tests the fix must turn from failing to passing and which
// must keep passing, and, from a SWE-Touch record, the mistaken belief a
// user may hold about the cause.
type Source struct {
	Name        string
	Instruction string
	// Acceptance fail on the task's code and pass with its solution;
	// Regression pass on both.
	Acceptance, Regression []string
	MistakenBelief         string
	Budget                 int     // 0: 5
	Seed                   *uint64 // nil: from the task's name
}

// Convert makes a conversation package from a single-turn task, offline
// and deterministically: the opening names only where the trouble is (the
// first file or name the issue mentions), so the agent must ask or look;
// the pool holds the issue's own sentences (a statement of the problem as
// a precise symptom, and vaguely; what must hold as boundaries; stated
// reasons as the correct cause; the rest as facts given when asked about
// their words), a symptom per failing acceptance test, and the record's
// mistaken belief as the wrong cause. Nothing enters the pool that the
// task does not say.
func Convert(src Source) (*Package, error) {
	if len(src.Acceptance) == 0 {
		return nil, fmt.Errorf("%s: no test fails on the task's code and passes with its solution: nothing for the user to ask for", src.Name)
	}
	sentences := splitSentences(src.Instruction)
	if len(sentences) == 0 {
		return nil, fmt.Errorf("%s: the instruction is empty", src.Name)
	}
	p := &Package{Schema: Schema, Budget: src.Budget, Opening: vagueOpening(src.Instruction),
		Phases:     []Phase{{ID: "p1", Acceptance: slices.Clone(src.Acceptance)}},
		Regression: slices.Clone(src.Regression)}
	if p.Budget == 0 {
		p.Budget = 5
	}
	seed := seedOf(src.Name)
	if src.Seed != nil {
		seed = *src.Seed
	}
	p.Persona.Seed = &seed
	add := func(kind string, it Item) {
		it.ID = fmt.Sprintf("%s%d", kindPrefix[kind], 1+countKind(p.Pool, kind))
		it.Phase, it.Kind = "p1", kind
		if len(it.About) == 0 {
			it.About = keywords(it.Text)
		}
		p.Pool = append(p.Pool, it)
	}
	add(Symptom, Item{Clarity: "precise", Text: sentences[0], Tests: src.Acceptance})
	add(Symptom, Item{Clarity: "vague", Text: vagueOpeningText(src.Instruction), Tests: src.Acceptance})
	for _, id := range src.Acceptance {
		add(Symptom, Item{Clarity: "precise", Text: "the test " + id + " fails", Tests: []string{id}})
	}
	for _, s := range sentences[1:] {
		switch {
		case strings.HasSuffix(s, "?") || len(keywords(s)) == 0:
			// a request ("Can you look into it?") or nothing to ask
			// about: no information
		case boundaryWords.MatchString(s):
			add(Boundary, Item{Text: s})
		case causeWords.MatchString(s):
			add(Cause, Item{Veracity: "correct", Text: s})
		case edgeWords.MatchString(s):
			add(Edge, Item{Text: s})
		default:
			add(Fact, Item{Text: s})
		}
	}
	if causeWords.MatchString(sentences[0]) {
		add(Cause, Item{Veracity: "correct", Text: sentences[0]})
	}
	if b := strings.TrimSpace(src.MistakenBelief); b != "" {
		add(Cause, Item{Veracity: "wrong", Text: b})
	}
	if err := p.check(append(slices.Clone(src.Acceptance), src.Regression...)); err != nil {
		return nil, fmt.Errorf("%s: the converted package: %w", src.Name, err)
	}
	return p, nil
}

var kindPrefix = map[string]string{Symptom: "s", Cause: "c", Boundary: "b", Edge: "e", Fact: "f"}

func countKind(pool []Item, kind string) int {
	n := 0
	for _, it := range pool {
		if it.Kind == kind {
			n++
		}
	}
	return n
}

var (
	boundaryWords = regexp.MustCompile(`(?i)\b(must|should|needs? to|has to|have to|keep|raise|raises|never|always|only)\b`)
	causeWords    = regexp.MustCompile(`(?i)\b(because|as if|since|due to|caused by|the cause)\b`)
	edgeWords     = regexp.MustCompile(`(?i)\b(also|even|empty|zero|none|edge|corner)\b`)
)

// splitSentences splits text into sentences, never inside a code span,
// with the Markdown line breaks folded.
func splitSentences(text string) []string {
	text = strings.Join(strings.Fields(text), " ")
	var out []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		b.WriteByte(c)
		if c == '`' {
			inCode = !inCode
		}
		if !inCode && (c == '.' || c == '?' || c == '!') && (i+1 == len(text) || text[i+1] == ' ') {
			if s := strings.TrimSpace(b.String()); len(s) > 1 {
				out = append(out, s)
			}
			b.Reset()
		}
	}
	if s := strings.TrimSpace(b.String()); len(s) > 1 {
		out = append(out, s)
	}
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// topic is what the trouble is about, as a user who has not read the
// code would say: the first file the issue names (without its
// extension), else its first code span, else "the code".
func topic(instruction string) string {
	spans := codeSpan.FindAllStringSubmatch(instruction, -1)
	for _, m := range spans {
		if strings.ContainsAny(m[1], "/.") && !strings.ContainsAny(m[1], " ()") {
			base := path.Base(m[1])
			return strings.TrimSuffix(base, path.Ext(base))
		}
	}
	if len(spans) > 0 {
		return spans[0][1]
	}
	return "the code"
}

// vagueOpening is the opening: where, never what.
func vagueOpening(instruction string) string {
	return fmt.Sprintf("Something is not right with %s. Can you find out what and fix it?", topic(instruction))
}

// vagueOpeningText is the vague symptom: the same, as an impression.
func vagueOpeningText(instruction string) string {
	return fmt.Sprintf("%s does not behave the way it should", topic(instruction))
}

// stop are words too common to mark what a question is about.
var stop = map[string]bool{"about": true, "after": true, "again": true, "before": true, "being": true, "could": true, "every": true,
	"first": true, "other": true, "should": true, "their": true, "there": true, "these": true, "thing": true, "those": true,
	"which": true, "while": true, "would": true, "where": true, "still": true, "instead": true, "value": true, "make": true}

// keywords are the words a question must hold to be about a sentence:
// its names from the code and its longer plain words.
func keywords(s string) []string {
	seen := map[string]bool{}
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		for _, w := range word.FindAllString(strings.ToLower(m[1]), -1) {
			if len(w) >= 3 {
				seen[w] = true
			}
		}
	}
	for _, w := range word.FindAllString(strings.ToLower(codeSpan.ReplaceAllString(s, " ")), -1) {
		if len(w) >= 5 && !stop[w] {
			seen[w] = true
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// seedOf is the persona seed of a task with none given: its name's hash,
// so a converted task meets the same user wherever it is converted.
func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
