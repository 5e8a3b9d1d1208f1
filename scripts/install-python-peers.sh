#!/usr/bin/env bash
# Installs the Python programs swetouch's tests compare against into a venv
# (idempotent: a pinned version already there is kept): SWE-bench's official
# harness, whose log parsers swebench/'s differential test holds ours to, and
# pytest, which makes real pytest logs for it. Tests find the venv at
# $SWETOUCH_PY (default $HOME/.cache/swetouch-py) and skip, saying why, when
# it is missing.
set -uo pipefail
dir="${SWETOUCH_PY:-$HOME/.cache/swetouch-py}"
pins=(
  "swebench==4.1.0"
  "pytest==8.3.5"
)
if [ ! -x "$dir/bin/python" ]; then
  python3 -m venv "$dir" || { echo "install-python-peers: python3 -m venv failed" >&2; exit 1; }
fi
status=0
for p in "${pins[@]}"; do
  name="${p%%==*}"
  want="${p##*==}"
  have=$("$dir/bin/python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null)
  if [ "$have" = "$want" ]; then
    echo "install-python-peers: $name $want already installed"
    continue
  fi
  echo "install-python-peers: installing $p"
  if ! "$dir/bin/pip" install --quiet --disable-pip-version-check "$p"; then
    echo "install-python-peers: $p failed to install; its tests will skip" >&2
    status=1
  fi
done
"$dir/bin/python" -c "import swebench.harness.log_parsers as p; print('install-python-peers: swebench parsers import')" || status=1
exit $status
