"""Runs a test module's tests by method name for swetouch.

$SWETOUCH_TESTS names the tests (space-separated; all when empty);
each result, "pass", "fail" or "error", goes to $SWETOUCH_RESULTS as a
JSON object. The exit code is 0 only when every test run passed.
Run with python3 -I -P: the workspace goes last on sys.path, so the
agent's files cannot stand in for the standard library, and the results
file is opened before any of its code is imported.
"""
import json
import os
import sys
import unittest

want = os.environ.pop("SWETOUCH_TESTS", "").split()
path = os.environ.pop("SWETOUCH_RESULTS", "")
out = open(path, "w") if path else None
sys.path.append(os.getcwd())


def cases(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from cases(t)
        else:
            yield t


results = {}
try:
    suite = unittest.TestLoader().loadTestsFromName(sys.argv[1])
except Exception as e:  # the agent's code does not import: every test fails
    print(f"cannot load {sys.argv[1]}: {e}", file=sys.stderr)
    suite = []
for t in cases(suite):
    name = t.id().rsplit(".", 1)[-1]
    if want and name not in want:
        continue
    r = unittest.TestResult()
    t.run(r)
    results[name] = "error" if r.errors else "fail" if r.failures else "pass"
    for _, tb in r.errors + r.failures:
        print(f"{name}:\n{tb}", file=sys.stderr)
for name in want:
    results.setdefault(name, "fail")
if out:
    json.dump(results, out)
    out.close()
print(json.dumps(results, sort_keys=True))
sys.exit(0 if results and all(v == "pass" for v in results.values()) else 1)
