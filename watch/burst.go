package watch

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// DefaultBurst is how many new files one Sync reports one by one; past
// it, its new files are folded into one change per directory. An agent's
// command that makes thousands of files (an install, a build, an
// attack on the watcher) made as many edit events, each with a diff of
// the whole file: 20,000 of them cost the session 28 s.
const DefaultBurst = 256

// Burst sets how many new files one Sync reports one by one.
func Burst(n int) Option { return func(w *Watcher) { w.burst = n } }

// isNew reports a path neither of the start nor seen since: a file the
// agent's commands made.
func (w *Watcher) isNew(rel string) bool {
	w.mu.Lock()
	_, seen := w.snap[rel]
	w.mu.Unlock()
	return !seen && (w.base == nil || !w.base.Has(rel))
}

// folded are the changes that stand for new files made in a burst: one
// per directory (per top directory when there are more directories than
// the burst), naming how many and the first few, with no diff.
func folded(paths []string, burst int) []Change {
	byDir := map[string][]string{}
	for _, p := range paths {
		byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
	}
	if len(byDir) > burst {
		byDir = map[string][]string{}
		for _, p := range paths {
			top, _, _ := strings.Cut(p, "/")
			if top == p {
				top = "."
			}
			byDir[top] = append(byDir[top], p)
		}
	}
	var out []Change
	for dir, ps := range byDir {
		slices.Sort(ps)
		shown := ps[:min(len(ps), 5)]
		more := ""
		if len(ps) > len(shown) {
			more = fmt.Sprintf(", and %d more", len(ps)-len(shown))
		}
		out = append(out, Change{Path: dir, Created: true, Files: len(ps),
			Diff: fmt.Sprintf("%d new files under %s/, diffs left out: %s%s\n", len(ps), dir, strings.Join(shown, ", "), more)})
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}
