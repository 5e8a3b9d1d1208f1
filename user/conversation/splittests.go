package conversation

import "slices"

// SplitTests tells a task's tests by their results on its code (base) and
// with its solution (solved): the acceptance tests fail, then pass; the
// regression tests pass on both; each list in order of id. A test that
// fails with the solution is neither.
func SplitTests(base, solved map[string]string) (acceptance, regression []string) {
	ids := make([]string, 0, len(solved))
	for id := range solved {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		switch {
		case solved[id] == "pass" && base[id] != "pass":
			acceptance = append(acceptance, id)
		case solved[id] == "pass":
			regression = append(regression, id)
		}
	}
	return acceptance, regression
}
