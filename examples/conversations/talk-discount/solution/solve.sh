#!/usr/bin/env bash
# Reference solution: run in the workspace.
python3 - <<'PY'
import re
p = "pricing.py"
s = open(p).read()
s = s.replace("    return price - percent\n",
              "    if not 0 <= percent <= 100:\n"
              "        raise ValueError(f\"percent out of range: {percent}\")\n"
              "    return price * (100 - percent) / 100\n")
open(p, "w").write(s)
PY
