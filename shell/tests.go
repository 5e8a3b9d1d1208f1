package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

// testRunner recognises test runners that are not Python modules.
func (w *walker) testRunner(c *call) bool {
	a := c.args
	first := ""
	if len(a) > 0 {
		first = a[0]
	}
	switch c.name {
	case "pytest", "py.test", "tox", "nox", "nosetests", "nose2", "trial", "jest", "vitest", "mocha", "ctest", "rspec", "phpunit", "runtests.py", "run_tests.py", "runtests", "ava", "tap":
		w.testScopes(a)
		return true
	case "test":
		if strings.Contains(c.argv0, "bin/") {
			w.testScopes(a)
			return true
		}
	case "go", "cargo", "dotnet", "deno", "bun", "mvn", "gradle", "gradlew", "sbt", "mix", "swift":
		if first == "test" || first == "vet" && c.name == "go" {
			w.testScopes(nil)
			return true
		}
	case "npm", "yarn", "pnpm":
		if first == "test" || first == "t" || (first == "run" && len(a) > 1 && strings.HasPrefix(a[1], "test")) || (c.name != "npm" && strings.HasPrefix(first, "test")) {
			w.testScopes(nil)
			return true
		}
	case "npx":
		if first == "jest" || first == "vitest" || first == "mocha" {
			w.testScopes(a[1:])
			return true
		}
	case "make", "gmake":
		for _, t := range a {
			if t == "test" || t == "tests" || t == "check" || strings.HasPrefix(t, "test-") || strings.HasPrefix(t, "test_") {
				w.testScopes(nil)
				return true
			}
		}
	case "django-admin", "django-admin.py":
		if first == "test" {
			w.testScopes(a[1:])
			return true
		}
	}
	return false
}

// testScopes records a test run, scoped to the test files it names.
func (w *walker) testScopes(args []string) {
	p := opts{short: "kmprcoxn", long: []string{"deselect", "ignore", "rootdir", "maxfail", "tb", "durations", "junitxml", "settings", "parallel", "verbosity", "pattern", "top-level-directory", "start-directory"}}.parse(args)
	n := 0
	for _, op := range p.operands {
		f, _, _ := strings.Cut(op, "::")
		if strings.ContainsRune(f, unknownRune) || !strings.Contains(f, "/") && !strings.HasSuffix(f, ".py") {
			continue
		}
		if rp, ok := w.resolve(f); ok {
			w.add(event.Test, event.FileScope(rp))
			n++
		}
	}
	if n == 0 {
		w.add(event.Test, event.Scope{})
	}
}
