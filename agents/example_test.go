package agents_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/swetouch/swetouch/agents"
)

// An agent registers itself from its own file's init, by name:
//
//	func init() { agents.Register(claude) }
//
// and a run, an eval or a replay finds it by that name and starts it: the
// Invocation holds its command line ({instruction} and {workspace} are
// filled in per trial), its environment and how its output is read. Given
// a model endpoint and no model, Claude Code runs its offline model there.
func ExampleAgent_Start() {
	scratch, err := os.MkdirTemp("", "agents-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(scratch)

	a, err := agents.Lookup("claude")
	if err != nil {
		log.Fatal(err)
	}
	inv, err := a.Start(agents.Launch{
		Bin:      "claude",
		ModelURL: "http://127.0.0.1:8080",
		Swetouch: "/usr/local/bin/swetouch",
		Scratch:  scratch, // its home of the run's own goes here
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inv.Name)
	for _, arg := range inv.Argv {
		fmt.Printf("  %q\n", arg)
	}
	// Output:
	// claude
	//   "claude"
	//   "-p"
	//   "{instruction}"
	//   "--output-format"
	//   "stream-json"
	//   "--verbose"
	//   "--allowedTools"
	//   "Bash,Read,Edit,Write,Glob,Grep"
	//   "--permission-mode"
	//   "acceptEdits"
	//   "--settings"
	//   "{\"hooks\":{\"PostToolUse\":[{\"hooks\":[{\"command\":\"'/usr/local/bin/swetouch' hook claude\",\"type\":\"command\"}],\"matcher\":\"Read|Edit|Write|MultiEdit|NotebookEdit\"}]}}"
	//   "--model"
	//   "claude-sonnet-4-5"
}

// A name no agent is registered under is an error that wraps ErrUnknown.
func ExampleLookup() {
	_, err := agents.Lookup("no-such-agent")
	fmt.Println(errors.Is(err, agents.ErrUnknown))
	// Output: true
}
