package agents

import (
	"os"
	"path/filepath"
	"strings"
)

// login is where an agent finds its user's login when it is given no
// endpoint: a credentials file under the home, or a key in the
// environment.
type login struct{ files, env []string }

// Login reports whether the agent, run without an endpoint, can find a
// login of its user's under home or in getenv, and if not, what it
// looked for. Without one, every run ends "Not logged in" after the
// agent's start-up: a caller about to run many refuses at once. A
// preset that names no login is taken to have one.
func (p *Preset) Login(home string, getenv func(string) string) (ok bool, looked string) {
	if len(p.login.files)+len(p.login.env) == 0 {
		return true, ""
	}
	var where []string
	for _, f := range p.login.files {
		path := filepath.Join(home, f)
		if _, err := os.Stat(path); err == nil {
			return true, ""
		}
		where = append(where, path)
	}
	for _, k := range p.login.env {
		if getenv(k) != "" {
			return true, ""
		}
		where = append(where, "$"+k)
	}
	return false, strings.Join(where, ", ")
}
