package container

// InsideSwetouch is where a trial's container finds swetouch (mounted
// read-only): an agent's command line that runs swetouch itself (the
// scripted agents) names it so.
const InsideSwetouch = inBin + "/swetouch"

// NoVerdict writes out's result.json for a trial of the task in taskDir
// that never ran (its container could not be made or started): no
// verdict, with the reason, since the machine failed, not the agent.
func NoVerdict(out, taskDir, reason string) error { return noVerdict(out, taskDir, reason) }
