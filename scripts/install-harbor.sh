#!/usr/bin/env bash
# Installs what the Harbor integration's tests run (integrations/harbor,
# docs/harbor.md), pinned and idempotent (a pinned version already there is
# kept):
#
# - Harbor (PyPI harbor==0.26.0) in a venv at $SWETOUCH_HARBOR (default
#   $HOME/.cache/swetouch-harbor), its dependencies held to
#   integrations/harbor/constraints.txt. Every Harbor release asks for
#   Python >= 3.12 (0.1.0 and 0.1.1: >= 3.13) and Debian bookworm's python3 is
#   3.11, so the venv is made with $SWETOUCH_HARBOR_PYTHON, else a python3.12
#   or later on PATH, else pyenv's (this machine's image has 3.12.1 and
#   3.13.0). `uv python install` would download a build from GitHub, which
#   this machine cannot reach.
# - Docker Compose v2 (github.com/docker/compose/v2 v2.40.3), which Harbor's
#   docker environment drives: built from the Go module proxy (its go.mod
#   has exclude directives, so `go install pkg@version` refuses it; it is
#   built inside the downloaded module instead) into
#   $HOME/.docker/cli-plugins/docker-compose. Debian's docker.io (20.10,
#   dockerd and the CLI) is installed from apt when missing.
#
# The tests start their own dockerd (a data root of its own, no bridge, no
# iptables) and skip, saying why, when any of this is missing.
set -uo pipefail
harbor_version=0.26.0
compose_version=v2.40.3
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${SWETOUCH_HARBOR:-$HOME/.cache/swetouch-harbor}"
status=0

# find_python prints the first Python >= 3.12 that runs: pyenv's shims
# name versions that are installed but not selected, and fail when run.
find_python() {
  local p pyenv
  pyenv=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]* 2>/dev/null | sort -rV | sed 's|$|/bin/python|')
  # shellcheck disable=SC2086 # words: the candidates
  for p in ${SWETOUCH_HARBOR_PYTHON:-} python3.14 python3.13 python3.12 $pyenv; do
    if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$p"
      return
    fi
  done
  return 1
}

have=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('harbor'))" 2>/dev/null)
if [ "$have" = "$harbor_version" ]; then
  echo "install-harbor: harbor $harbor_version already installed in $venv"
elif py=$(find_python); then
  echo "install-harbor: harbor $harbor_version into $venv with $py ($("$py" --version 2>&1))"
  "$py" -m venv "$venv" &&
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
      -c "$here/integrations/harbor/constraints.txt" "harbor==$harbor_version" ||
    { echo "install-harbor: harbor $harbor_version failed to install" >&2; status=1; }
else
  echo "install-harbor: no Python 3.12 or later (harbor $harbor_version requires it; Debian bookworm has 3.11): set SWETOUCH_HARBOR_PYTHON" >&2
  status=1
fi

if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  { apt-get update -qq && apt-get install -y -qq docker.io >/dev/null; } ||
    { echo "install-harbor: docker.io failed to install" >&2; status=1; }
fi

plugin="$HOME/.docker/cli-plugins/docker-compose"
if [ -x "$plugin" ] && "$plugin" version --short 2>/dev/null | grep -qx "${compose_version#v}"; then
  echo "install-harbor: docker compose $compose_version already installed"
elif command -v go >/dev/null; then
  echo "install-harbor: building docker compose $compose_version from the Go module proxy"
  src=$(cd /tmp && go mod download -json "github.com/docker/compose/v2@$compose_version" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])') &&
    mkdir -p "$(dirname "$plugin")" &&
    (cd "$src" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$compose_version" \
      -o "$plugin" ./cmd) ||
    { echo "install-harbor: docker compose $compose_version failed to build" >&2; status=1; }
else
  echo "install-harbor: no go to build docker compose with" >&2
  status=1
fi
exit $status
