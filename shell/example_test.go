package shell_test

import (
	"fmt"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/shell"
)

// Classify says what a command reads, edits and tests, with the lines
// wherever the command states them.
func ExampleClassify() {
	for _, cmd := range []string{
		"nl -ba pricing.py | sed -n 4,6p",
		"sed -i 's/percent/pct/' pricing.py && python -m pytest tests/test_pricing.py -q",
		"ls -la",
	} {
		r := shell.Classify(cmd)
		fmt.Println(cmd)
		for _, k := range r.Kinds() {
			fmt.Println("  ", k, r.Scopes(k))
		}
	}
	// Output:
	// nl -ba pricing.py | sed -n 4,6p
	//    read [pricing.py:4-6]
	// sed -i 's/percent/pct/' pricing.py && python -m pytest tests/test_pricing.py -q
	//    edit [pricing.py]
	//    test [tests/test_pricing.py]
	// ls -la
	//    run []
}

// A Session holds one run's commands: with KeepCwd a cd persists to the
// next command, as in a persistent shell, and paths under the root are
// read as the workspace's.
func ExampleSession_Classify() {
	s := shell.NewSession(shell.WithRoot("/repo"), shell.KeepCwd())
	s.Classify("cd /repo/src")
	r := s.Classify("head -n 20 app.py")
	fmt.Println(r.Kinds(), r.Scopes(event.Read), r.Cwd)
	// Output: [read] [src/app.py:1-20] src
}
