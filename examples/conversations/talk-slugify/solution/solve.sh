#!/usr/bin/env bash
# Reference solution: run in the workspace.
python3 - <<'PY'
p = "textutil.py"
s = open(p).read()
s = s.replace('    return re.sub(r"\\W", "-", text)\n',
              '    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")\n')
open(p, "w").write(s)
PY
