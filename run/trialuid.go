package run

import (
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/sandbox"
)

// trialUser gives the trial's sandboxes a host uid of its own (setup's
// User), so what the kernel counts per uid (inotify instances,
// processes) is the trial's alone, and readies what they must reach as
// it: the private folder searchable (not listable), the hub's socket open
// to connect to (a sandbox that falls back to swetouch's uid, a bind
// its own cannot reach, must connect too; the hub admits by what the
// client runs, not by who it is). callsBack says something in the
// sandbox runs swetouch to report to the session (Invocation.CallsBack,
// a self-check). Where it cannot have one (swetouch is not root, the
// range is held) setup's SharedUID says why. release frees the uid once
// the trial's sandboxes have ended.
func trialUser(setup *sandbox.Setup, host *Host, callsBack bool) (release func()) {
	if setup.Runner == nil {
		return func() {}
	}
	if callsBack {
		// swetouch's hooks and relays open their connections with the
		// session's token too, from the trial's copy of it; with none,
		// swetouch stays the runner's scrubbed copy, which no hub admits
		setup.Over = tokenedOver(setup.Runner, host.own.clients, filepath.Join(host.private, "shim"), host.own.token, host.Socket)
	}
	lease, err := setup.Runner.LeaseUID()
	if err != nil {
		setup.SharedUID = err.Error()
		return func() {}
	}
	u := lease.User
	if err := os.Chmod(host.private, 0o711); err == nil {
		err = os.Chmod(host.Socket, 0o666)
	}
	if err != nil {
		lease.Release()
		setup.SharedUID = sandbox.ErrShared.Error() + ": " + err.Error()
		return func() {}
	}
	setup.User = &u
	return lease.Release
}
