//go:build race

package testbin

// race is whether the tests were built with the race detector: the
// binaries they start are built with it too, so the hub and the relays
// running as subprocesses are race-checked as well.
const race = true
