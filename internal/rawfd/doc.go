// Package rawfd reads and writes non-blocking descriptors with raw
// system calls, waiting for them in Go's poller.
//
// Every read or write through an *os.File enters the system call the way
// a call that may block must: it tells the scheduler, and when the
// runtime's monitor thread (sysmon) has gone to sleep because every P was
// idle, as it does in a relay waiting for its peer, that wakes it, and it
// then polls every 20 µs for a while. A relay that sleeps between the
// messages of each call paid that on every message: the monitor's wake-ups
// were a sixth of the MCP relay's CPU per call on this project's machines,
// and on two cores each costs the client or the server a turn. A read or
// write of a non-blocking descriptor cannot block, so it need not tell the
// scheduler; waiting for one is left to the poller, which wakes no one.
package rawfd
