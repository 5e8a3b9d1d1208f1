package main

import (
	"strings"
	"testing"
)

func TestHostNetwork(t *testing.T) {
	for _, tc := range []struct {
		mode, url string
		preset    bool
		host      bool
		err       string
	}{
		{"host", "https://api.example.com/v1", true, true, ""},
		{"isolated", "http://127.0.0.1:8000/v1", true, false, ""},
		{"isolated", "http://localhost:8000", false, false, ""},
		{"isolated", "", false, false, ""},
		{"isolated", "https://api.example.com/v1", false, false, "not on this machine's loopback"},
		{"isolated", "", true, false, "talks to its own provider"},
		{"open", "", false, false, "want isolated or host"},
	} {
		host, err := hostNetwork(tc.mode, tc.url, tc.preset, false)
		if host != tc.host || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s %q preset %v: host %v, err %v; want %v, %q", tc.mode, tc.url, tc.preset, host, err, tc.host, tc.err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512M": 512 << 20, "4G": 4 << 30, "1.5g": 3 << 29, "1024": 1024, "2K": 2048} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1G", "4GB"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) took it", in)
		}
	}
}
