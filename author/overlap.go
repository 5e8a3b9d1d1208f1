package author

import "github.com/swetouch/swetouch/task"

// Overlap is how mined regions compare with a record's released ones,
// line by line: Shared lines of Mined and Released, and whether any
// region of one meets one of the other.
type Overlap struct {
	Mined, Released, Shared int
	Hit                     bool
}

// Recall is the share of the released lines mined (0 with none).
func (o Overlap) Recall() float64 { return ratio(o.Shared, o.Released) }

// Precision is the share of the mined lines released (0 with none).
func (o Overlap) Precision() float64 { return ratio(o.Shared, o.Mined) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// CompareRegions measures mined regions against released ones.
func CompareRegions(mined []MinedRegion, released []task.Region) Overlap {
	lines := func(rs []task.Region) map[string]map[int]bool {
		m := map[string]map[int]bool{}
		for _, r := range rs {
			if m[r.Path] == nil {
				m[r.Path] = map[int]bool{}
			}
			for n := r.StartLine; n <= r.EndLine; n++ {
				m[r.Path][n] = true
			}
		}
		return m
	}
	var ms []task.Region
	for _, r := range mined {
		ms = append(ms, task.Region{Path: r.Path, StartLine: r.StartLine, EndLine: r.EndLine})
	}
	a, b := lines(ms), lines(released)
	var o Overlap
	for p, ns := range a {
		o.Mined += len(ns)
		for n := range ns {
			if b[p][n] {
				o.Shared++
			}
		}
	}
	for _, ns := range b {
		o.Released += len(ns)
	}
	o.Hit = o.Shared > 0
	return o
}
