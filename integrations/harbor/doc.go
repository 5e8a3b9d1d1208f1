// Package harbor holds the tests of swetouch's Harbor integration: the
// installed agent (swetouch_harbor/agent.py, which Harbor loads with
// --agent swetouch_harbor.agent:SwetouchAgent), its compose override and
// the reading of Harbor's reward by score, run against Harbor itself
// (scripts/install-harbor.sh; docs/harbor.md). It has no Go code of its
// own.
package harbor
