"""The official swebench package's parsers and grading, for swebench's
differential tests: one JSON request per line on stdin, one answer per line
on stdout.

  {"parser": "parse_log_sympy", "log": "..."}        -> {"map": {...}} or {"error": "..."}
  {"grade": {"repo", "version", "FAIL_TO_PASS", "PASS_TO_PASS"}, "log": "..."}
      -> {"map": {...}, "found": bool, "report": {...}, "resolved": bool}
"""
import json
import os
import sys
import tempfile
import types

from swebench.harness import grading
from swebench.harness.log_parsers import python as log_parsers


def parse(req):
    fn = getattr(log_parsers, req["parser"])
    try:
        return {"map": fn(req["log"], None)}
    except Exception as e:  # the official parser fails on this log
        return {"error": "%s: %s" % (type(e).__name__, e)}


def grade(req):
    g = req["grade"]
    spec = types.SimpleNamespace(repo=g["repo"], version=g["version"])
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as f:
        f.write(req["log"])
    try:
        m, found = grading.get_logs_eval(spec, f.name)
    except Exception as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}
    finally:
        os.unlink(f.name)
    ref = {"instance_id": "x", "FAIL_TO_PASS": g["FAIL_TO_PASS"], "PASS_TO_PASS": g["PASS_TO_PASS"]}
    report = grading.get_eval_tests_report(m, ref)
    resolved = found and grading.get_resolution_status(report) == grading.ResolvedStatus.FULL.value
    return {"map": m, "found": found, "resolved": resolved,
            "report": {k: {"success": v["success"], "failure": v["failure"]}
                       for k, v in report.items() if k in ("FAIL_TO_PASS", "PASS_TO_PASS")}}


for line in sys.stdin:
    req = json.loads(line)
    out = grade(req) if "grade" in req else parse(req)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
