package session

import "github.com/swetouch/swetouch/session/wire"

// Client talks to a hub over its socket (see package wire, which the
// shell shim uses alone to stay small).
type Client = wire.Client

// Dial connects to the hub listening at the Unix socket path.
func Dial(path string) (*Client, error) { return wire.Dial(path) }
