package watch

import "github.com/swetouch/swetouch/internal/safefile"

// readContent is the content of the workspace file rel, or false when it
// has none the watcher may read (see safefile): it never waits.
func (w *Watcher) readContent(rel string) (string, bool) {
	b, err := safefile.ReadIn(w.root, rel)
	if err != nil {
		return "", false
	}
	return string(b), true
}
