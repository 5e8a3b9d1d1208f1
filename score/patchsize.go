package score

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// PatchSize is a diff's size as SWE-Touch's Table 2 counts it: changed
// lines (added plus removed) and the files it touches.
type PatchSize struct {
	Lines int `json:"lines"`
	Files int `json:"files"`
}

// SizeOf measures diffs taken together: their changed lines summed, the
// files any of them touches counted once. Lines are counted within each
// hunk's own lengths, so a removed line that reads "-- x" is a line, not
// a header.
func SizeOf(diffs ...string) PatchSize {
	var s PatchSize
	files := map[string]bool{}
	for _, d := range diffs {
		old, new := 0, 0 // the current hunk's lines still to come
		for _, l := range strings.Split(d, "\n") {
			switch {
			case old > 0 || new > 0:
				switch {
				case strings.HasPrefix(l, "+"):
					s.Lines++
					new--
				case strings.HasPrefix(l, "-"):
					s.Lines++
					old--
				case strings.HasPrefix(l, "\\"): // no newline at end of file
				default:
					old, new = old-1, new-1
				}
			case strings.HasPrefix(l, "@@ "):
				old, new = hunkLengths(l)
			case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
				if p := strings.TrimSpace(l[4:]); p != "/dev/null" {
					files[strings.TrimPrefix(strings.TrimPrefix(p, "a/"), "b/")] = true
				}
			}
		}
	}
	s.Files = len(files)
	return s
}

// hunkLengths are the old and new lengths of a hunk header "@@ -a,b
// +c,d @@" (a length left out is 1).
func hunkLengths(h string) (old, new int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0
	}
	length := func(r string) int {
		_, n, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			return 0
		}
		return v
	}
	return length(f[1]), length(f[2])
}

// SizeRow is one benchmark's row of Table 2: the mean size of its
// reference repairs and of its Counter-Edits, per record.
type SizeRow struct {
	Benchmark string `json:"benchmark"`
	// Records are those with a Counter-Edit patch (message-only ones
	// have none); References those whose reference repair was given.
	Records     int     `json:"records"`
	CounterLine float64 `json:"counter_lines"`
	CounterFile float64 `json:"counter_files"`
	References  int     `json:"references"`
	RefLine     float64 `json:"reference_lines"`
	RefFile     float64 `json:"reference_files"`
}

// SizeInput is one record as Table 2 reads it: its benchmark, its
// Counter-Edits' diffs in order, and its reference repair ("" when not
// known).
type SizeInput struct {
	Benchmark string
	Counter   []string
	Reference string
}

// reappliesOne says a benchmark's records reapply one edit K times
// (SWE-bench Verified's three identical diffs), so the edit counts once;
// elsewhere the K distinct edits count together.
func reappliesOne(benchmark string) bool { return benchmark == "swe_bench_verified" }

// PatchSizes is Table 2 from records, a row per benchmark in first-seen
// order. A Verified record's edit is counted once; a Pro or DeepSWE
// record's K edits together (lines summed, files once): from the
// released v0.1.2 records this gives the paper's 7.0/1.04, 13.0 and
// 10.8/1.52 (Pro's files 1.44 against its 1.40; docs/metrics.md).
func PatchSizes(recs []SizeInput) []SizeRow {
	var order []string
	rows := map[string]*SizeRow{}
	for _, r := range recs {
		row := rows[r.Benchmark]
		if row == nil {
			row = &SizeRow{Benchmark: r.Benchmark}
			rows[r.Benchmark] = row
			order = append(order, r.Benchmark)
		}
		if diffs := r.Counter; len(diffs) > 0 {
			if reappliesOne(r.Benchmark) {
				diffs = diffs[:1]
			}
			s := SizeOf(diffs...)
			row.Records++
			row.CounterLine += float64(s.Lines)
			row.CounterFile += float64(s.Files)
		}
		if r.Reference != "" {
			s := SizeOf(r.Reference)
			row.References++
			row.RefLine += float64(s.Lines)
			row.RefFile += float64(s.Files)
		}
	}
	out := make([]SizeRow, 0, len(order))
	for _, b := range order {
		row := rows[b]
		if row.Records > 0 {
			row.CounterLine /= float64(row.Records)
			row.CounterFile /= float64(row.Records)
		}
		if row.References > 0 {
			row.RefLine /= float64(row.References)
			row.RefFile /= float64(row.References)
		}
		out = append(out, *row)
	}
	return out
}

// WritePatchSizes prints Table 2.
func WritePatchSizes(w io.Writer, rows []SizeRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\treference lines / files\tcounter-edit lines / files\trecords")
	for _, r := range rows {
		ref := "–"
		if r.References > 0 {
			ref = fmt.Sprintf("%.1f / %.2f (%d)", r.RefLine, r.RefFile, r.References)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f / %.2f\t%d\n", r.Benchmark, ref, r.CounterLine, r.CounterFile, r.Records)
	}
	tw.Flush()
	fmt.Fprintln(w, "lines: added plus removed; files: those the diffs touch; a Verified record's reapplied edit counts once, a Pro or DeepSWE record's K edits together.")
}
