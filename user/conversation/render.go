package conversation

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Part is one piece of a rendered message and what it comes from: a pool
// item's id, or "" for the renderer's own connecting words, which carry
// no fact.
type Part struct {
	Text string
	Item string
}

// EditedPart marks the part that says what the user did to the code: not
// a pool item, but the user's own action, which the user knows.
const EditedPart = "@edited"

// Message is the text of parts.
func Message(parts []Part) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Render phrases a selection offline, deterministically, as the turn's
// persona speaks: each item's text as the pool has it, with a lead-in
// for its kind; an unknown question gets "I don't know"; an empty
// selection a nudge to finish. Nothing is said that is not an item or a
// lead-in.
func Render(persona string, sel Selection) []Part {
	p, _ := ParsePersona(persona)
	var parts []Part
	if len(sel.Edited) > 0 {
		parts = append(parts, Part{Text: fmt.Sprintf("I changed %s myself while you worked.", strings.Join(sel.Edited, " and ")), Item: EditedPart})
	}
	for _, it := range sel.Items {
		parts = append(parts, Part{Text: leadIn(p, it), Item: ""}, Part{Text: sentenceOf(it.Text), Item: it.ID})
	}
	for range sel.Unknown {
		parts = append(parts, Part{Text: "I don't know that, I'm afraid."})
	}
	if len(parts) == 0 {
		parts = append(parts, Part{Text: "Please finish what is left and make sure everything still works."})
	}
	return parts
}

// leadIn is the few words before an item, by its kind and the persona.
func leadIn(p persona, it Item) string {
	switch it.Kind {
	case Symptom:
		if p.Clarity == "vague" {
			return "Something still seems off."
		}
		return "Here is what I see."
	case Cause:
		if p.Cause == "correct" {
			return "I know where it comes from."
		}
		return "I'm fairly sure I know why."
	case Boundary:
		return "One thing it must keep doing."
	case Edge:
		return "Also, mind this case."
	case Fact:
		return "To answer you:"
	}
	return ""
}

// sentenceOf is an item's text as a sentence: a capital first letter
// when it opens with a plain word (never a name from the code, such as
// apply_discount), and a closing stop; nothing else changed.
func sentenceOf(s string) string {
	s = strings.TrimSpace(s)
	first, _, _ := strings.Cut(s, " ")
	if plainWord.MatchString(first) {
		r, size := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[size:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// plainWord is a lower-case word of letters only, perhaps with a comma.
var plainWord = regexp.MustCompile(`^[a-z]+,?$`)
