package shell

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
)

// nestedCommands read commands inside the one being walked: their trees
// are read into the nodes after the outer tree's while it is in use.
var nestedCommands = []string{
	"cat > run.sh <<'EOF'\ncd src && sed -i 's/a/b/' x.py\ngrep -n foo y.py | head -3\nEOF",
	"bash run.sh && cat z.py",
	"bash -c 'cat a.py | head -5' && sed -n 1,3p b.py",
	"cd /testbed && eval 'cat c.py' < /dev/null && wc -l d.py",
	"sh -c \"grep -rn x src | head\"; bash -c 'bash -c \"cat e.py\"'",
	"cat f.py",
}

// TestNodesReused: classifying a session's commands with the quick
// parse's nodes reused gives, command by command, what nodes of each
// tree's own give.
func TestNodesReused(t *testing.T) {
	cmds := append(append([]string{}, nestedCommands...), quickShapes...)
	if files, _ := filepath.Glob(corpusTrajectories); len(files) > 0 {
		cmds = append(cmds, corpusCommands(t)...)
	} else {
		testsupport.Degraded(t, testsupport.Corpus, "no corpus at %s: its commands are left out", corpusTrajectories)
	}
	reused, fresh := NewSession(), NewSession()
	fresh.nodes = nil
	for i, c := range cmds {
		got := reused.Classify(c)
		want := fresh.Classify(c)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("command %d %q:\nreused nodes %+v\n   own nodes %+v", i, c, got, want)
		}
	}
}
