// Package proxy is the core the protocol relays share: JSON-RPC messages
// copied line by line between two peers, unchanged unless a hook rewrites
// one, so a relay never re-encodes what it does not need to inspect.
package proxy
