package mcp

import (
	"net/url"
	"testing"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// TestHTTPRelayReferenceSwitch: SWETOUCH_REFERENCE=1 picks net/http for
// a relay made after it is set, and nothing else does.
func TestHTTPRelayReferenceSwitch(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1")
	for env, want := range map[string]bool{"1": true, "": false, "0": false, "yes": false} {
		t.Setenv(fastjson.ReferenceEnv, env)
		if got := NewHTTPRelay(u, nil).reference; got != want {
			t.Errorf("%s=%q: reference %v", fastjson.ReferenceEnv, env, got)
		}
	}
}
