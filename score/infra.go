package score

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
)

// InfraError is one reason trials have no verdict, with how many share it.
type InfraError struct {
	Reason string   `json:"reason"`
	Trials []string `json:"trials"` // their folders
}

// InfraErrors groups the trials resolved null by their reason, the most
// common first: what to fix before their tasks can be scored.
func InfraErrors(trials []Trial) []InfraError {
	by := map[string][]string{}
	for _, t := range trials {
		if t.Result.Resolved == nil {
			by[t.Result.Reason] = append(by[t.Result.Reason], t.Dir)
		}
	}
	out := make([]InfraError, 0, len(by))
	for reason, dirs := range by {
		sort.Strings(dirs)
		out = append(out, InfraError{Reason: reason, Trials: dirs})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Trials) != len(out[j].Trials) {
			return len(out[i].Trials) > len(out[j].Trials)
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// WriteInfraErrors lists the reasons, each with its count and a trial
// folder to look in (its agent.log says what the agent printed).
func WriteInfraErrors(w io.Writer, errs []InfraError) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintln(w, "infrastructure errors (resolved null, counted apart from failures):")
	for _, e := range errs {
		reason := e.Reason
		if reason == "" {
			reason = "(no reason given)"
		}
		fmt.Fprintf(w, "  %d× %s\n     e.g. %s\n", len(e.Trials), reason, filepath.Join(e.Trials[0], "agent.log"))
	}
}
