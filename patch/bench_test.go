package patch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApply3Hunks10k applies a 3-hunk diff to a 10,000-line file:
// "exact" at the recorded positions, and "anchored" where the agent shifted
// the file and rewrote a context line of every hunk.
func BenchmarkApply3Hunks10k(b *testing.B) {
	var lines []string
	for i := 1; i <= 10000; i++ {
		lines = append(lines, fmt.Sprintf("    value_%d = compute(%d)", i, i))
	}
	content := strings.Join(lines, "\n") + "\n"
	var d strings.Builder
	d.WriteString("--- a/f.py\n+++ b/f.py\n")
	for k, at := range []int{1000, 5000, 9000} {
		fmt.Fprintf(&d, "@@ -%d,6 +%d,7 @@\n", at, at+k)
		for i := at; i < at+3; i++ {
			fmt.Fprintf(&d, " %s\n", lines[i-1])
		}
		fmt.Fprintf(&d, "+    inserted_%d = True\n", k)
		for i := at + 3; i < at+6; i++ {
			fmt.Fprintf(&d, " %s\n", lines[i-1])
		}
	}
	fds, err := Parse(d.String())
	if err != nil {
		b.Fatal(err)
	}
	shifted := "# agent\n# lines\n" + strings.Replace(strings.Replace(strings.Replace(content,
		lines[1004]+"\n", "    value_1005 = compute(1005)  # agent\n", 1),
		lines[5004]+"\n", "    value_5005 = compute(5005)  # agent\n", 1),
		lines[9004]+"\n", "    value_9005 = compute(9005)  # agent\n", 1)
	for _, c := range []struct{ name, content, method string }{{"exact", content, Exact}, {"anchored", shifted, Anchored}} {
		b.Run(c.name, func(b *testing.B) {
			fs := byteFS{}
			data := []byte(c.content)
			for b.Loop() {
				fs["f.py"] = data
				rep, err := Apply(fs, fds)
				if err != nil || !rep.Applied || rep.Hunks[0].Method != c.method {
					b.Fatalf("%v %+v", err, rep)
				}
			}
		})
	}
}

// byteFS hands out and keeps byte slices as they are, so the benchmark
// measures Apply and not the string conversions of memFS.
type byteFS map[string][]byte

func (m byteFS) ReadFile(n string) ([]byte, fsMode, error) {
	c, ok := m[n]
	if !ok {
		return nil, 0, errNotExist
	}
	return c, 0o644, nil
}
func (m byteFS) WriteFile(n string, b []byte, _ fsMode) error { m[n] = b; return nil }
func (m byteFS) Remove(n string) error                        { delete(m, n); return nil }
