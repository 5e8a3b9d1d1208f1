package mcp

import "net/url"

// localOrigin reports whether a browser Origin is this machine's.
func localOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}
