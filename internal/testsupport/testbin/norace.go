//go:build !race

package testbin

// race is whether the tests were built with the race detector (race.go).
const race = false
