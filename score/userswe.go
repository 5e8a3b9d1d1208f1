package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// UserSWERow is one agent's conversations under one condition, by
// UserSWE's aggregates (U17): how often the reviewer rewrote the judge's
// decisions, how often a trial filed an equivalent-pass request and how
// many were granted, and the opening-clarity gap: LDPR on tasks whose
// user opens precise less LDPR on those it opens vague.
type UserSWERow struct {
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Trials    int    `json:"trials"`
	// Reviewed are the judge's decisions the reviewer answered (accepted
	// or rewritten); Rewritten those it rewrote.
	Reviewed    int      `json:"reviewed"`
	Rewritten   int      `json:"rewritten"`
	RewriteRate *float64 `json:"rewrite_rate"`
	// ReviewerFailed are the decisions whose review failed (the path
	// closed to the tests' verdict).
	ReviewerFailed int `json:"reviewer_failed"`
	// Requesting are the trials that filed at least one equivalent-pass
	// request; Requests and Granted count the requests.
	Requesting  int      `json:"requesting_trials"`
	RequestRate *float64 `json:"request_rate"`
	Requests    int      `json:"requests"`
	Granted     int      `json:"granted"`
	GrantRate   *float64 `json:"grant_rate"`
	// PreciseLDPR and VagueLDPR are the mean LDPR over tasks whose
	// persona chain opens precise, and vague (per-task means first);
	// ClarityGap is their difference (nil when either is missing).
	PreciseLDPR *float64 `json:"precise_opening_ldpr"`
	VagueLDPR   *float64 `json:"vague_opening_ldpr"`
	ClarityGap  *float64 `json:"opening_clarity_gap"`
	// MessagesReviewed and MessagesRejected are the model-phrased user
	// messages the reviewer answered, and those it rejected or failed
	// on (each sent as the offline text).
	MessagesReviewed int `json:"messages_reviewed"`
	MessagesRejected int `json:"messages_rejected"`
	// Terminated are the trials ended by the use of the evaluation's
	// material.
	Terminated int `json:"terminated"`
}

// UserSWERows are the UserSWE aggregates of the multi-turn trials, by
// agent and condition (sorted). Trials without a verdict are left out.
func UserSWERows(trials []Trial) []UserSWERow {
	rows := map[cell]*UserSWERow{}
	clarity := map[cell]map[string]map[string][2]float64{} // opening clarity → task → LDPR sum, n
	for _, t := range trials {
		r := t.Result
		conv := r.Conversation
		if conv == nil || r.Resolved == nil {
			continue
		}
		c := cell{r.AgentName, r.Condition}
		row := rows[c]
		if row == nil {
			row = &UserSWERow{Agent: c.agent, Condition: c.cond}
			rows[c], clarity[c] = row, map[string]map[string][2]float64{}
		}
		row.Trials++
		if conv.Terminated() {
			row.Terminated++
		}
		requested := false
		for _, turn := range conv.Turns {
			if j := turn.Judge; j != nil {
				switch j.Review {
				case "accepted":
					row.Reviewed++
				case "rewritten":
					row.Reviewed++
					row.Rewritten++
				case "failed":
					row.ReviewerFailed++
				}
			}
			for _, e := range turn.Equivalence {
				requested = true
				row.Requests++
				if e.Outcome == "granted" {
					row.Granted++
				}
			}
			switch turn.MessageReview {
			case "accepted":
				row.MessagesReviewed++
			case "rejected", "failed":
				row.MessagesReviewed++
				row.MessagesRejected++
			}
		}
		if requested {
			row.Requesting++
		}
		if len(conv.PersonaChain) > 0 {
			open, _, _ := strings.Cut(conv.PersonaChain[0], "/")
			v, _ := ldprScore(t)
			if clarity[c][open] == nil {
				clarity[c][open] = map[string][2]float64{}
			}
			s := clarity[c][open][r.Task]
			clarity[c][open][r.Task] = [2]float64{s[0] + v, s[1] + 1}
		}
	}
	var out []UserSWERow
	for c, row := range rows {
		row.RewriteRate = ratio(row.Rewritten, row.Reviewed)
		row.RequestRate = ratio(row.Requesting, row.Trials)
		row.GrantRate = ratio(row.Granted, row.Requests)
		row.PreciseLDPR, row.VagueLDPR = meanOfTasks(clarity[c]["precise"]), meanOfTasks(clarity[c]["vague"])
		if row.PreciseLDPR != nil && row.VagueLDPR != nil {
			gap := *row.PreciseLDPR - *row.VagueLDPR
			row.ClarityGap = &gap
		}
		out = append(out, *row)
	}
	slices.SortFunc(out, func(a, b UserSWERow) int {
		return strings.Compare(a.Agent+"\x00"+a.Condition, b.Agent+"\x00"+b.Condition)
	})
	return out
}

// ratio is n/d, nil when d is 0 (no rate, not 0%).
func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := float64(n) / float64(d)
	return &v
}

// meanOfTasks is the mean of per-task means (nil with no task), so a
// task run more often does not weigh more.
func meanOfTasks(sums map[string][2]float64) *float64 {
	if len(sums) == 0 {
		return nil
	}
	total := 0.0
	for _, s := range sums {
		total += s[0] / s[1]
	}
	v := total / float64(len(sums))
	return &v
}

// WriteUserSWE prints the UserSWE aggregates (nothing without a
// conversation).
func WriteUserSWE(w io.Writer, rows []UserSWERow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "%-12s %-13s %6s %10s %10s %10s %12s %10s\n", "agent", "condition", "trials", "rewrites", "requests", "granted", "clarity gap", "terminated")
	pct := func(v *float64, n int) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f%% (%d)", 100**v, n)
	}
	for _, r := range rows {
		gap := "–"
		if r.ClarityGap != nil {
			gap = fmt.Sprintf("%+.3f", *r.ClarityGap)
		}
		fmt.Fprintf(w, "%-12s %-13s %6d %10s %10s %10s %12s %10d\n", r.Agent, r.Condition, r.Trials,
			pct(r.RewriteRate, r.Rewritten), pct(r.RequestRate, r.Requesting), pct(r.GrantRate, r.Granted), gap, r.Terminated)
	}
	fmt.Fprintln(w, "rewrites: the judge's decisions the reviewer rewrote; requests: trials that filed an equivalent-pass request; granted: of the requests; clarity gap: LDPR on tasks whose user opens precise less on those it opens vague (UserSWE U17).")
}
