package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// gatedScript is startedScript for a sandbox where the host has a part
// to do inside before the command: after saying the sandbox is made, it
// waits on descriptor 7 until swetouch has done it (a line): the relays'
// listeners made, so the command's first connection finds them; it and
// bwrap moved into their control groups. Without that line it never
// starts the command.
const gatedScript = `printf . >&4 && read -r _ <&7 && exec 3<&- 4>&- 5>&- 6<&- 7<&- && exec "$0" "$@"`

// release does the host's part inside the made sandbox (the relays, the
// moves into the control groups), then lets the command start; on
// failure it never does, and Wait says the sandbox could not be made.
func (s *Sandboxed) release() {
	if s.relay != nil {
		s.relayErr = s.openRelays(s.pid.dup())
		if s.relayErr != nil {
			return
		}
	}
	if s.joined != nil {
		if s.joinErr = s.joinRest(); s.joinErr != nil {
			return
		}
	}
	s.goW.Write([]byte("\n"))
}

// openRelays makes the relays inside the sandbox's network namespace.
func (s *Sandboxed) openRelays(pidfd int) error {
	if pidfd < 0 {
		return errors.New("sandbox: no pid 1 to relay into")
	}
	defer unix.Close(pidfd)
	return s.relay.listen(pidfd)
}

// closeGate closes the relays' pipe of a sandbox that never started.
func (s *Sandboxed) closeGate() {
	if s.goR != nil {
		s.goR.Close()
		s.goW.Close()
	}
}
