package sandbox

import (
	"os"
	"path/filepath"
)

// goWorkspace reports whether dir is a GOPATH entry holding a module
// cache.
func goWorkspace(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "pkg", "mod"))
	return err == nil && info.IsDir()
}
