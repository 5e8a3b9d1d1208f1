package agents

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The registry is the one piece of package state: each agent's file
// registers it from init, as database/sql's drivers do, so adding an
// agent touches its own file and nothing else. It is written only before
// main runs and read after.
var registry = struct {
	sync.RWMutex
	m map[string]*Agent
}{m: map[string]*Agent{}}

// Register makes an agent known by its name. It panics on a name taken
// twice or an agent without a command: both are programming errors,
// found by the first test that links the package.
func Register(a Agent) {
	if a.Name == "" || a.Command == nil {
		panic("agents.Register: an agent needs a name and a command")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[a.Name]; dup {
		panic("agents.Register: " + a.Name + " registered twice")
	}
	registry.m[a.Name] = &a
}

// ErrUnknown is the error for a name no agent is registered under.
var ErrUnknown = errors.New("no such agent")

// Lookup returns the agent registered under name.
func Lookup(name string) (*Agent, error) {
	registry.RLock()
	a, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q (have %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return a, nil
}

// Find returns the agent registered under name and the path of its
// binary: on PATH, else in the install-agents cache ("" for an agent
// that is swetouch itself).
func Find(name string) (*Agent, string, error) {
	a, err := Lookup(name)
	if err != nil || a.Bin == "" {
		return a, "", err
	}
	bin, err := FindAgent(a.Bin)
	return a, bin, err
}

// Names are the registered agents' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ShellTools are the shell tools of every registered agent that has one,
// by name: what the scripted model server turns "@shell" into.
func ShellTools() []ShellTool {
	var out []ShellTool
	for _, n := range Names() {
		a, _ := Lookup(n)
		out = append(out, a.Shell...)
	}
	return out
}
