// Package cascade mines two-issue cascades from a repository's history
// (UserSWE U1): pairs of fixes, both merged, where the later one points
// to the earlier (it names an issue or pull request the first fixed) or
// changes lines the first fix wrote, each with tests of its own to tell
// the phases apart. A proposal holds the base (the first fix's parent),
// both fixes as diffs that apply in turn, and each phase's tests, in the
// shape of conversation.json's phases, ready for `swetouch check` once
// it is built into a task.
package cascade

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Unit is one change of the mainline (a first-parent commit, a merge
// with what it merged): its message, and what its diff added and
// removed.
type Unit struct {
	Commit, Parent string
	Subject        string
	Message        string
	// Files are the paths it changed; Tests those of them that hold
	// tests; TestNames the test functions it added.
	Files, Tests, TestNames []string
	added, removed          map[string]bool // non-test lines, trimmed
	fixes                   []int           // issues it says it fixes, and its own pull request
	refs                    []int           // every issue or pull request it names
}

// Link is why a later fix is the second phase of an earlier one.
type Link struct {
	Kind   string `json:"kind"` // names_first, touches_first
	Detail string `json:"detail"`
}

// Link kinds.
const (
	NamesFirst   = "names_first"   // its message names an issue or pull request the first fixed
	TouchesFirst = "touches_first" // its diff changes lines the first fix wrote
)

// Pair is a proposed cascade of two units, first before second.
type Pair struct {
	First, Second *Unit
	Links         []Link
}

var (
	issueRef = regexp.MustCompile(`(?i)(?:#|gh-)(\d+)\b`)
	fixRef   = regexp.MustCompile(`(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+(?:issue\s+)?(?:#|gh-)(\d+)`)
	prRef    = regexp.MustCompile(`(?i)^Merge pull request #(\d+)|\(#(\d+)\)\s*$`)
	revert   = regexp.MustCompile(`(?i)\brevert`)
	fixWords = regexp.MustCompile(`(?i)\b(fix(e[sd]|ing)?|bug|regression|wrong|incorrect|crash(es)?|error)\b`)
	testPath = regexp.MustCompile(`(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$`)
	testFunc = regexp.MustCompile(`^\s*(?:async\s+)?def\s+(test_\w+)|^func\s+(Test\w+)\(`)
)

// IsTest reports whether a path holds tests, by the usual conventions.
func IsTest(path string) bool { return testPath.MatchString(path) }

// newUnit reads a unit's message and its -U0 diff.
func newUnit(commit, parent, message, diff string) *Unit {
	u := &Unit{Commit: commit, Parent: parent, Message: message, added: map[string]bool{}, removed: map[string]bool{}}
	u.Subject, _, _ = strings.Cut(strings.TrimSpace(message), "\n")
	for _, m := range fixRef.FindAllStringSubmatch(message, -1) {
		u.fixes = appendInt(u.fixes, m[1])
	}
	if m := prRef.FindStringSubmatch(u.Subject); m != nil {
		u.fixes = appendInt(u.fixes, m[1]+m[2])
	}
	for _, m := range issueRef.FindAllStringSubmatch(message, -1) {
		u.refs = appendInt(u.refs, m[1])
	}
	file := ""
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			file = diffPath(line)
			if file != "" && !slices.Contains(u.Files, file) {
				u.Files = append(u.Files, file)
				if IsTest(file) {
					u.Tests = append(u.Tests, file)
				}
			}
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		case strings.HasPrefix(line, "+"):
			if IsTest(file) {
				if m := testFunc.FindStringSubmatch(line[1:]); m != nil && !slices.Contains(u.TestNames, m[1]+m[2]) {
					u.TestNames = append(u.TestNames, m[1]+m[2])
				}
			} else if l := significant(line[1:]); l != "" {
				u.added[l] = true
			}
		case strings.HasPrefix(line, "-"):
			if l := significant(line[1:]); l != "" && !IsTest(file) {
				u.removed[l] = true
			}
		}
	}
	return u
}

// diffPath is the new path of a "diff --git a/X b/Y" header.
func diffPath(header string) string {
	_, b, ok := strings.Cut(strings.TrimPrefix(header, "diff --git "), " b/")
	if !ok {
		return ""
	}
	return b
}

// significant is a code line worth matching between two fixes: trimmed,
// at least 12 characters, not a comment alone.
func significant(line string) string {
	l := strings.TrimSpace(line)
	if len(l) < 12 || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
		return ""
	}
	return l
}

func appendInt(list []int, s string) []int {
	n, err := strconv.Atoi(s)
	if err != nil || slices.Contains(list, n) {
		return list
	}
	return append(list, n)
}

// isFix reports whether a unit reads as a fix that brought tests: the
// cascade's phases are told apart by them.
func (u *Unit) isFix() bool {
	return len(u.TestNames) > 0 && len(u.Files) > len(u.Tests) && (len(u.fixes) > 0 || fixWords.MatchString(u.Message))
}

// Pairs are the cascades among units (oldest first): a fix, and a later
// fix within window units of it that names what the first fixed or
// changes at least minTouched lines it wrote (a single shared line is
// most often a refactoring's). A revert of the first is no second
// issue.
func Pairs(units []*Unit, window, minTouched int) []Pair {
	var out []Pair
	for i, a := range units {
		if !a.isFix() {
			continue
		}
		for j := i + 1; j < len(units) && j <= i+window; j++ {
			b := units[j]
			if !b.isFix() || revert.MatchString(b.Message) {
				continue
			}
			var links []Link
			for _, n := range b.refs {
				if slices.Contains(a.fixes, n) && !slices.Contains(b.fixes, n) {
					links = append(links, Link{Kind: NamesFirst, Detail: fmt.Sprintf("#%d", n)})
				}
			}
			touched := 0
			for l := range b.removed {
				if a.added[l] {
					touched++
				}
			}
			if touched >= max(minTouched, 1) {
				links = append(links, Link{Kind: TouchesFirst, Detail: fmt.Sprintf("%d of the first fix's lines changed", touched)})
			}
			if len(links) > 0 {
				out = append(out, Pair{First: a, Second: b, Links: links})
			}
		}
	}
	return out
}
