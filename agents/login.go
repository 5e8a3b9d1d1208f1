package agents

import (
	"os"
	"path/filepath"
	"strings"
)

// Login is where an agent finds its user's login when it is given no
// endpoint: a credentials file under the home, or a key in the
// environment.
type Login struct{ Files, Env []string }

// LoggedIn reports whether the agent, run without an endpoint, can find a
// login of its user's under home or in getenv, and if not, what it
// looked for. Without one, every run ends "Not logged in" after the
// agent's start-up: a caller about to run many refuses at once. A
// agent that names no login is taken to have one.
func (p *Agent) LoggedIn(home string, getenv func(string) string) (ok bool, looked string) {
	if len(p.Login.Files)+len(p.Login.Env) == 0 {
		return true, ""
	}
	var where []string
	for _, f := range p.Login.Files {
		path := filepath.Join(home, f)
		if _, err := os.Stat(path); err == nil {
			return true, ""
		}
		where = append(where, path)
	}
	for _, k := range p.Login.Env {
		if getenv(k) != "" {
			return true, ""
		}
		where = append(where, "$"+k)
	}
	return false, strings.Join(where, ", ")
}
