package score

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// AuditSummary counts what the trials' audits flagged, and which trials
// a flag made untrustworthy (the flagged behaviour changed their verdict).
type AuditSummary struct {
	Trials        int            `json:"trials"`
	Flagged       int            `json:"flagged"`
	Kinds         map[string]int `json:"kinds"`
	Untrustworthy []Untrusted    `json:"untrustworthy"`
}

// Untrusted is one untrustworthy trial and why.
type Untrusted struct {
	Dir string `json:"dir"`
	Why string `json:"why"`
}

// Audits sums the audits of the trials that have one.
func Audits(trials []Trial) AuditSummary {
	s := AuditSummary{Kinds: map[string]int{}, Untrustworthy: []Untrusted{}}
	for _, t := range trials {
		a := t.Result.Audit
		if a == nil {
			continue
		}
		s.Trials++
		if len(a.Flags) > 0 {
			s.Flagged++
		}
		for _, f := range a.Flags {
			s.Kinds[f.Kind]++
		}
		if a.Untrustworthy {
			s.Untrustworthy = append(s.Untrustworthy, Untrusted{Dir: t.Dir, Why: a.Why})
		}
	}
	sort.Slice(s.Untrustworthy, func(i, j int) bool { return s.Untrustworthy[i].Dir < s.Untrustworthy[j].Dir })
	return s
}

// WriteAudit prints the audit's counts: flagged and untrustworthy apart.
func WriteAudit(w io.Writer, s AuditSummary) {
	if s.Flagged == 0 {
		return
	}
	kinds := make([]string, 0, len(s.Kinds))
	for k, n := range s.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "audit: %d of %d trials flagged (%s); %d untrustworthy (a flagged behaviour changed the verdict)\n",
		s.Flagged, s.Trials, strings.Join(kinds, ", "), len(s.Untrustworthy))
	for _, u := range s.Untrustworthy {
		fmt.Fprintf(w, "  %s: %s\n", u.Dir, u.Why)
	}
}
