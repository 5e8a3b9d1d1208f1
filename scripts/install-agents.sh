#!/usr/bin/env bash
# Installs pinned versions of the agents swetouch drives (and the reference MCP
# servers its relay is tested against) into a cache folder
# (idempotent: a version already there is kept). Tests find the binaries in
# $SWETOUCH_AGENTS/node_modules/.bin and skip, saying why, when one is missing.
set -uo pipefail
# root's home is 0700, which a trial's own uid cannot pass through to reach
# an agent (docs/trial-uid.md): as root, a folder it can (agents.AgentsDir)
if [ -n "${SWETOUCH_AGENTS:-}" ]; then dir="$SWETOUCH_AGENTS"
elif [ "$(id -u)" = 0 ]; then dir=/var/cache/swetouch/agents; mkdir -p /var/cache/swetouch; chmod 711 /var/cache/swetouch
else dir="$HOME/.cache/swetouch-agents"; fi
mkdir -p "$dir"
chmod 755 "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"swetouch-agents","private":true}' > package.json
pins=(
  "@anthropic-ai/claude-code@2.1.332"
  "@openai/codex@0.171.0"
  "@google/gemini-cli@0.61.0"
  "opencode-ai@1.18.33"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@agentclientprotocol/sdk@2.4.0"
  "@agentclientprotocol/claude-agent-acp@0.101.0"
  "@agentclientprotocol/codex-acp@2.6.0"
)
status=0
for p in "${pins[@]}"; do
  name="${p%@*}"
  want="${p##*@}"
  have=$(node -p "try{require('./node_modules/$name/package.json').version}catch(e){''}" 2>/dev/null)
  if [ "$have" = "$want" ]; then
    echo "install-agents: $name $want already installed"
    continue
  fi
  echo "install-agents: installing $p"
  if ! npm install --no-audit --no-fund --loglevel=error "$p"; then
    echo "install-agents: $p failed to install; its tests skip (and fail where SWETOUCH_REQUIRE names agents, as in CI)" >&2
    status=1
  fi
done
# Python agents, pinned, in a virtual environment of Debian's python3 (a
# system path the sandbox shows): mini-swe-agent 2.2.4, the version of the
# dev corpus's v2 trajectories
py_pins=("mini-swe-agent==2.2.4")
for p in "${py_pins[@]}"; do
  name="${p%%==*}"
  want="${p##*==}"
  have=$(py/bin/python3 -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null)
  if [ "$have" = "$want" ]; then
    echo "install-agents: $name $want already installed"
    continue
  fi
  echo "install-agents: installing $p"
  if ! { [ -x py/bin/python3 ] || /usr/bin/python3 -m venv py; } || ! py/bin/pip install -q "$p"; then
    echo "install-agents: $p failed to install; its tests will skip" >&2
    status=1
  fi
done
[ -x py/bin/mini ] && echo "install-agents: have mini"
ls node_modules/.bin 2>/dev/null | grep -E '^(claude|codex|gemini|opencode|mcp-server-filesystem|mcp-server-everything|claude-agent-acp|codex-acp)$' | sed 's/^/install-agents: have /'
exit $status
