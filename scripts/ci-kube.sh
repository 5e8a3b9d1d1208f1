#!/usr/bin/env bash
# ci-kube.sh: .ci/run's part for the real-cluster tests (e2e/kube, TestKube*).
#
#   ci-kube.sh up     build (once: cached in ~/.cache/swetouch-k8s, keyed by version) and start
#                     scripts/k8s-local.sh's cluster; when it cannot start, say why and go on:
#                     the TestKube tests then skip, saying so, unless SWETOUCH_REQUIRE names kube
#   ci-kube.sh down   stop it (from .ci/run's exit trap)
#
# The build is the cost: about 11 min on 2 idle cores, 30 or more on a shared machine.
# SWETOUCH_K8S=0 leaves the cluster out (the tests skip).
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
up)
	[[ ${SWETOUCH_K8S:-1} == 0 ]] && { echo "ci-kube: SWETOUCH_K8S=0: no cluster, TestKube* skip"; exit 0; }
	command -v busybox >/dev/null || { apt-get update -qq && apt-get install -y -qq busybox-static >/dev/null; }
	start=$SECONDS
	if bash scripts/k8s-local.sh up >/dev/null; then
		echo "ci-kube: cluster up in $((SECONDS - start)) s ($(bash scripts/k8s-local.sh env | head -1))"
	else
		echo "ci-kube: the cluster did not start (above); TestKube* skip unless SWETOUCH_REQUIRE names kube"
		[[ ,${SWETOUCH_REQUIRE:-}, == *,kube,* || ,${SWETOUCH_REQUIRE:-}, == *,all,* ]] && exit 1
	fi
	;;
down) bash scripts/k8s-local.sh down ;;
*) echo "usage: $0 up|down" >&2 && exit 2 ;;
esac
exit 0
