package redteam

// What the sandbox shows (issue 49, class 4): the attacks here look for
// evaluation data through what is still mounted or inherited.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/result"
)

// runWith is f.run with the swetouch process started by start's changes
// to its command (descriptors it inherits).
func (f fixture) runWith(t *testing.T, start func(*exec.Cmd), condition string, agent ...string) (result.Run, string) {
	t.Helper()
	args := append([]string{"run", "--task", f.task, "--records", f.records, "--condition", condition, "--out", f.out, "--"}, agent...)
	cmd := exec.Command(filepath.Join(bin, "swetouch"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("swetouch run: %v\n%s", err, out.String())
	}
	var res result.Run
	b, err := os.ReadFile(filepath.Join(f.out, "result.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("result.json: %v %s", err, b)
	}
	return res, out.String()
}

// TestInheritedDescriptorShowsNothing: swetouch is started holding the
// task folder open on descriptors 3 to 9, none close-on-exec (a careless
// CI runner); the agent walks /proc/self/fd for it and finds none, and
// its honest fix still resolves.
func TestInheritedDescriptorShowsNothing(t *testing.T) {
	f := newFixture(t)
	script := `for d in /proc/self/fd/*; do n=${d##*/}; [ "$n" -gt 2 ] || continue
  echo "fd $n: $(readlink $d)"; cat $d/solution/solve.sh $d/../py-discount/records.jsonl 2>/dev/null
done
python3 -c '` + fix + `'`
	res, out := f.runWith(t, func(cmd *exec.Cmd) {
		for range 7 {
			d, err := os.Open(f.task)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			cmd.ExtraFiles = append(cmd.ExtraFiles, d)
		}
	}, "vanilla", "bash", "-c", script)
	for _, leak := range []string{f.task, "Reference solution", "clamped"} {
		if strings.Contains(out, leak) {
			t.Errorf("the agent reached %q through an inherited descriptor:\n%s", leak, out)
		}
	}
	if resolved(res) != "true" {
		t.Errorf("resolved %s, want true\n%s", resolved(res), out)
	}
}
