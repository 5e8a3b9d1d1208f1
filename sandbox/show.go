// What a sandbox shows of the host besides its spec's paths: the tools on
// the agent's PATH and an agent's own install.

package sandbox

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/safefile"
)

// Tools are the directories a process finds its programs in, from the
// PATH of env, that the system directories do not already hold: for an
// entry under home the top folder of home holding it (a version manager
// such as ~/.pyenv needs all of its tree), else the entry itself. A Go
// workspace (~/go) is shown by its entry alone (~/go/bin): the rest is
// its module cache, which holds the sources of all that `go install`
// fetched, swetouch's examples among them.
func Tools(env []string, system []string) []string {
	if system == nil {
		system = DefaultSystem
	}
	var path, home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		} else if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	// the account's own home too: a tool installed there (pyenv's shims
	// call back into ~/.pyenv) stays whole when HOME points elsewhere
	homes := []string{home}
	if u, err := user.Current(); err == nil && u.HomeDir != home {
		homes = append(homes, u.HomeDir)
	}
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		if Under(dir, system) || Under(dir, []string{"/tmp"}) {
			continue
		}
		for _, home := range homes {
			if home != "" && home != "/" && safefile.Inside(dir, home) && dir != home {
				rel, _ := filepath.Rel(home, dir)
				if top := filepath.Join(home, strings.Split(rel, string(filepath.Separator))[0]); !goWorkspace(top) {
					dir = top
				}
				break
			}
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() || slices.Contains(out, dir) {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// Install is what an executable needs to run: the file itself, and for a
// program installed by npm the node_modules folder that holds it and its
// dependencies.
func Install(exe string) []string {
	out := []string{exe}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return out
	}
	if real != exe {
		out = append(out, real)
	}
	for _, p := range []string{exe, real} {
		if i := strings.LastIndex(p, "/node_modules/"); i >= 0 {
			out = append(out, p[:i+len("/node_modules")])
		}
		// a Python agent's virtual environment: its bin/ script runs the
		// environment's interpreter over its site-packages
		if venv := filepath.Dir(filepath.Dir(p)); fileExists(filepath.Join(venv, "pyvenv.cfg")) {
			out = append(out, venv)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fileExists reports whether p names a regular file.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
