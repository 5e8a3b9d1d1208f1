"""The official swebench package's parsers and grading, for swebench's
differential tests: one JSON request per line on stdin, one answer per line
on stdout.

  {"parser": "parse_log_sympy", "log": "..."}        -> {"map": {...}} or {"error": "..."}
  {"grade": {"repo", "version", "FAIL_TO_PASS", "PASS_TO_PASS"}, "log": "..."}
      -> {"map": {...}, "found": bool, "report": {...}, "resolved": bool}
"""
import importlib.util
import json
import os
import sys
import tempfile
import types


def _bare_package(name):
    """The package without running its __init__ (swebench's imports every
    part of the harness and their dependencies: docker, datasets, modal,
    requests), so the venv holds swebench alone (pip --no-deps)."""
    spec = importlib.util.find_spec(name)
    m = types.ModuleType(name)
    m.__path__ = list(spec.submodule_search_locations)
    sys.modules[name] = m


_bare_package("swebench")
_bare_package("swebench.harness")
# imported at the top of modules the grading imports, used only by
# functions it never calls (fetching environment files and datasets,
# reading JS patches): stand-ins whose every name does nothing
for _name in ("requests", "unidiff", "datasets", "dotenv"):
    if importlib.util.find_spec(_name) is None:
        _m = types.ModuleType(_name)
        _m.__getattr__ = lambda attr: (lambda *a, **k: None)
        sys.modules[_name] = _m

from swebench.harness import grading  # noqa: E402
from swebench.harness.log_parsers import python as log_parsers  # noqa: E402


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
