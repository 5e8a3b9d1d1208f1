package task

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseResults: both forms test.sh may write, and what is refused.
func TestParseResults(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want map[string]string
		bad  bool
	}{
		{`{"t1": "pass", "t2": "fail", "t3": "error"}`, map[string]string{"t1": "pass", "t2": "fail", "t3": "error"}, false},
		{`<testsuite><testcase classname="m" name="a"/><testcase classname="m" name="b"><failure/></testcase><testcase name="c"><error/></testcase></testsuite>`,
			map[string]string{"m::a": "pass", "m::b": "fail", "c": "error"}, false},
		{`<testsuites><testsuite><testcase name="a"><skipped/></testcase></testsuite><testsuite><testcase name="b"/></testsuite></testsuites>`,
			map[string]string{"a": "fail", "b": "pass"}, false},
		{`{"t1": "ok"}`, nil, true},
		{`[1, 2]`, nil, true},
		{`<testsuite><testcase`, nil, true},
	} {
		got, err := ParseResults([]byte(tt.in))
		if (err != nil) != tt.bad || !tt.bad && !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestVerifyPerTest: WithTests hands test.sh the ids to run and a file
// for its results, and the verdict holds them; a green exit with an
// expected test not passing is not resolved (issue 49), and with every
// expected test passing it is.
func TestVerifyPerTest(t *testing.T) {
	dir := t.TempDir()
	repo, tests := filepath.Join(dir, "repo"), filepath.Join(dir, "tests")
	os.MkdirAll(repo, 0o755)
	os.MkdirAll(tests, 0o755)
	os.WriteFile(filepath.Join(repo, "f.txt"), []byte("fixed\n"), 0o644)
	// each id passes when f.txt says so; the ids come from SWETOUCH_TESTS
	os.WriteFile(filepath.Join(tests, "test.sh"), []byte(`set -e
out="{"; sep=""
for id in ${SWETOUCH_TESTS:-a b}; do
  [ "$id" = d ] && continue # a test that never reports
  r=fail; grep -q fixed f.txt && [ "$id" != b ] && r=pass
  out="$out$sep\"$id\": \"$r\""; sep=", "
done
echo "$out}" > "$SWETOUCH_RESULTS"
grep -q fixed f.txt
`), 0o755)
	tk := &Task{Name: "tiny", Dir: dir, Repo: repo, Tests: tests, Timeout: time.Minute}
	v := Verify(context.Background(), tk, repo, WithTests("a", "b", "c"))
	want := map[string]string{"a": "pass", "b": "fail", "c": "pass"}
	if v.Resolved == nil || *v.Resolved || !maps.Equal(v.Tests, want) || !strings.Contains(v.Reason, "expected test b reported fail") {
		t.Errorf("verdict %+v, want false with tests %v", v, want)
	}
	if v := Verify(context.Background(), tk, repo, WithTests("a", "c", "d")); v.Resolved == nil || *v.Resolved || !strings.Contains(v.Reason, "expected test d reported no result") {
		t.Errorf("an expected test missing: %+v, want false", v)
	}
	if v := Verify(context.Background(), tk, repo, WithTests("a", "c")); v.Resolved == nil || !*v.Resolved {
		t.Errorf("every expected test passing: %+v, want true", v)
	}
	if v := Verify(context.Background(), tk, repo); v.Tests != nil {
		t.Errorf("without WithTests: tests %v", v.Tests)
	}
}
