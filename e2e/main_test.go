package e2e_test

import (
	"testing"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
)

// TestMain removes the built swetouch only when every test is done with it.
// The binaries are built as released, without the race detector
// (testbin.Plain): real agents under a race-built swetouch outrun go
// test's ten minutes.
func TestMain(m *testing.M) {
	testbin.Plain()
	testbin.Main(m, nil)
}

// examplesDir holds the example tasks, conversations and agents' plans.
const examplesDir = "../examples"

// realAgents are the registered agents with an install of their own (not
// swetouch's scripted ones), sorted by name: the tests that drive each
// real agent take them from the registry, so a new agent is tested by
// being registered.
func realAgents(t *testing.T) []*agents.Agent {
	t.Helper()
	var out []*agents.Agent
	for _, n := range agents.Names() {
		a, err := agents.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		if a.Bin != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatal("no real agent is registered")
	}
	return out
}
