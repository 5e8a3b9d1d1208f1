package shell

import (
	"cmp"
	"slices"

	"github.com/swetouch/swetouch/event"
)

// Finding is one effect of a command. An empty Scope.Path means the kind is
// known but the files are not (for example `xargs sed -i`).
type Finding struct {
	Kind  event.Kind  `json:"kind"`
	Scope event.Scope `json:"scope"`
}

// Result is the classification of one command.
type Result struct {
	Findings []Finding
	// Fallback is set when the parser rejected the command and token rules
	// were used instead; Err says why the parser failed.
	Fallback bool
	Err      string
	// Cwd is the tracked working directory after the command.
	Cwd string
}

// Kinds lists the kinds of the findings, reads first, each once; a command
// with no finding is a run.
func (r *Result) Kinds() []event.Kind {
	var ks []event.Kind
	for _, k := range []event.Kind{event.Read, event.Edit, event.Test, event.Run} {
		for _, f := range r.Findings {
			if f.Kind == k {
				ks = append(ks, k)
				break
			}
		}
	}
	if len(ks) == 0 {
		ks = []event.Kind{event.Run}
	}
	return ks
}

// Scopes returns the deduplicated, sorted scopes of kind k.
func (r *Result) Scopes(k event.Kind) []event.Scope {
	var out []event.Scope
	for _, f := range r.Findings {
		if f.Kind == k && f.Scope.Path != "" {
			out = append(out, f.Scope)
		}
	}
	return NormalizeScopes(out)
}

// Events reduces the result to one event per kind, in the order of Kinds.
func (r *Result) Events(command string) []event.Event {
	var evs []event.Event
	for _, k := range r.Kinds() {
		ev := event.Event{Kind: k, Command: command, Scopes: r.Scopes(k)}
		if r.Fallback {
			ev.Note = "classified by token rules: " + r.Err
		}
		evs = append(evs, ev)
	}
	return evs
}

// NormalizeScopes sorts scopes by path and start, drops duplicates, merges
// overlapping or adjacent line ranges of one file, and lets a whole-file
// scope absorb the line scopes of its file.
func NormalizeScopes(in []event.Scope) []event.Scope {
	if len(in) == 0 {
		return nil
	}
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b event.Scope) int {
		if c := cmp.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		// whole-file scopes first within a path
		if a.Whole() != b.Whole() {
			if a.Whole() {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.End, b.End)
	})
	out := s[:0:0]
	for _, sc := range s {
		if n := len(out); n > 0 && out[n-1].Path == sc.Path {
			last := &out[n-1]
			if last.Whole() {
				continue
			}
			if sc.Start <= last.End+1 {
				last.End = max(last.End, sc.End)
				continue
			}
		}
		out = append(out, sc)
	}
	return out
}
