// Package fastjson reads and writes the JSON of every call (the hub's
// lines, the relays' params and results, the trajectory's events) by
// hand, byte for byte as encoding/json reads and writes it, without its
// reflection, which cold cost tens of microseconds a message. Each
// reading and writing is fuzzed against encoding/json, and what it does
// not cover is left to encoding/json.
package fastjson
