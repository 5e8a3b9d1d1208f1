// Package testsupport is what the tests share about the machine they run
// on: which prerequisites outside the repository a run must have. Locally
// a test whose prerequisite is missing skips, saying why; in CI, where
// SWETOUCH_REQUIRE names the prerequisite, it fails, so a green run has
// proven what the README claims. Its subpackages are the tests' fixtures:
// testbin (the binaries), devdata (the shared corpus and mirrors),
// jsoncheck and rawhttp.
package testsupport

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// RequireEnv names the prerequisites a run must have, comma-separated
// ("corpus,agents,chromium,bwrap"), or "all".
const RequireEnv = "SWETOUCH_REQUIRE"

// A Prereq is one thing outside the repository some tests need.
type Prereq string

// The prerequisites tests name when they find one missing.
const (
	// Corpus is ../shared (SWETOUCH_SHARED, SWETOUCH_CORPUS): the dev
	// corpus and the released records the README's figures come from.
	Corpus Prereq = "corpus"
	// Mirrors are fetched upstream git mirrors (SWETOUCH_MIRRORS).
	Mirrors Prereq = "mirrors"
	// Agents are node and what scripts/install-agents.sh installs: the
	// agents, the reference MCP servers, the ACP adapters and SDKs.
	Agents Prereq = "agents"
	// Chromium is a headless Chromium, for the report's rendering.
	Chromium Prereq = "chromium"
	// Bwrap is a bubblewrap that can make a sandbox here.
	Bwrap Prereq = "bwrap"
	// Cgroups is a cgroup v2 subtree the tests may make groups in.
	Cgroups Prereq = "cgroups"
	// Harbor is what scripts/install-harbor.sh installs: Harbor in its
	// venv, docker's dockerd and CLI, and the compose v2 plugin.
	Harbor Prereq = "harbor"
	// Kube is the single-node cluster scripts/k8s-local.sh starts.
	Kube Prereq = "kube"
)

// Prereqs are every prerequisite, the names SWETOUCH_REQUIRE accepts.
func Prereqs() []Prereq {
	return []Prereq{Corpus, Mirrors, Agents, Chromium, Bwrap, Cgroups, Harbor, Kube}
}

// UnknownPrereqError is a name in SWETOUCH_REQUIRE no test knows: a typo
// would otherwise require nothing, silently.
type UnknownPrereqError struct{ Name string }

func (e *UnknownPrereqError) Error() string {
	return fmt.Sprintf("%s: unknown prerequisite %q (known: %v, or all)", RequireEnv, e.Name, Prereqs())
}

// Required is the set a SWETOUCH_REQUIRE value names.
func Required(list string) (map[Prereq]bool, error) {
	req := map[Prereq]bool{}
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			for _, p := range Prereqs() {
				req[p] = true
			}
		case isPrereq(Prereq(name)):
			req[Prereq(name)] = true
		default:
			return nil, &UnknownPrereqError{name}
		}
	}
	return req, nil
}

func isPrereq(p Prereq) bool {
	for _, q := range Prereqs() {
		if p == q {
			return true
		}
	}
	return false
}

// IsRequired is whether SWETOUCH_REQUIRE names p, for code with no test
// to end (a TestMain).
func IsRequired(p Prereq) (bool, error) {
	req, err := Required(os.Getenv(RequireEnv))
	return req[p], err
}

// Missing ends t because p is missing, saying why (format and args): a
// skip, or a failure when SWETOUCH_REQUIRE names p. Call it where the test
// finds the prerequisite absent, in place of t.Skipf.
func Missing(t testing.TB, p Prereq, format string, args ...any) {
	t.Helper()
	env := os.Getenv(RequireEnv)
	req, err := Required(env)
	if err != nil {
		t.Fatal(err)
	}
	why := fmt.Sprintf(format, args...)
	if req[p] {
		t.Fatalf("%s is missing and %s=%s requires it: %s", p, RequireEnv, env, why)
	}
	t.Skip(why)
}

// Degraded notes that t runs with less than it should because p is
// missing (a check left out, agents run unsandboxed): a log line, or a
// failure when SWETOUCH_REQUIRE names p. For tests that still prove
// something without p, where Missing would skip all of it.
func Degraded(t testing.TB, p Prereq, format string, args ...any) {
	t.Helper()
	req, err := IsRequired(p)
	if err != nil {
		t.Fatal(err)
	}
	why := fmt.Sprintf(format, args...)
	if req {
		t.Fatalf("%s is missing and %s requires it: %s", p, RequireEnv, why)
	}
	t.Log(why)
}

// Slow skips t under go test -short: it takes more than about five
// seconds here (real agents, whole runs, a corpus), which a quick local
// loop leaves to CI.
func Slow(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow, over ~5 s: skipped with -short")
	}
}
