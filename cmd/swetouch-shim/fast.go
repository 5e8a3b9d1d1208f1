package main

// The shim's common case, a -c command in a session, runs in C before the
// Go runtime starts (fast.c, a constructor), because an agent pays the
// shim's start-up on every command and Go's alone was more than the
// shim's whole budget. Without cgo the Go path below does everything.

// #cgo CFLAGS: -O2 -Wall -Wextra -Wno-unused-parameter
// #cgo LDFLAGS: -static
import "C"
