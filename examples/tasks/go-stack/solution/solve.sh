#!/usr/bin/env bash
# Reference solution: run in the workspace.
python3 - <<'PY'
p = "stack.go"
s = open(p).read()
s = s.replace("\tv = s.items[len(s.items)-1]\n",
              "\tif len(s.items) == 0 {\n\t\treturn 0, false\n\t}\n\tv = s.items[len(s.items)-1]\n")
open(p, "w").write(s)
PY
