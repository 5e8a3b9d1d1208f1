#!/usr/bin/env bash
# Installs the Python programs swetouch's tests compare against into a venv
# (idempotent: a pinned version already there is kept): SWE-bench's official
# harness, whose log parsers swebench/'s differential test holds ours to
# (without its dependencies: the parsers and the grading need none, and
# swebench/testdata/official.py loads them without the package's __init__),
# and pytest, which makes real pytest logs for it. Tests find the venv at
# $SWETOUCH_PY (default $HOME/.cache/swetouch-py) and skip, saying why, when
# it is missing.
set -uo pipefail
dir="${SWETOUCH_PY:-$HOME/.cache/swetouch-py}"
pins=(
  "swebench==4.1.0 --no-deps"
  "pytest==8.3.5"
)
if [ ! -x "$dir/bin/python" ]; then
  python3 -m venv "$dir" || { echo "install-python-peers: python3 -m venv failed" >&2; exit 1; }
fi
status=0
for p in "${pins[@]}"; do
  spec="${p%% *}"
  flags="${p#"$spec"}"
  name="${spec%%==*}"
  want="${spec##*==}"
  have=$("$dir/bin/python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null)
  if [ "$have" = "$want" ]; then
    echo "install-python-peers: $name $want already installed"
    continue
  fi
  echo "install-python-peers: installing $p"
  # shellcheck disable=SC2086 # flags are words
  if ! "$dir/bin/pip" install --quiet --disable-pip-version-check $flags "$spec"; then
    echo "install-python-peers: $p failed to install; its tests will skip" >&2
    status=1
  fi
done
"$dir/bin/python" "$(dirname "$0")/../swebench/testdata/official.py" </dev/null && echo "install-python-peers: the official parsers load" || status=1
exit $status
