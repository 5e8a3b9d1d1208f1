package run

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/session"
)

// tokened is what a session's own copy of the shim is: its token ("":
// none), and the clients it and the swetouch beside the shim it copies
// run as.
type tokened struct {
	token   string
	clients []string
}

// tokenShims makes the shim directory as shims does, from the session's
// own copy of the shim carrying its token (session.TokenedCopy), so that only the
// shim's own connections carry it. A shim with no token slot (a build
// without one) is linked as it is, with no token: the hub then asks for
// none.
func tokenShims(private, exe, socket string) (dir string, t tokened, err error) {
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return "", t, err
		}
		exe = self
		if slim := filepath.Join(filepath.Dir(self), "swetouch-shim"); isExecutable(slim) {
			exe = slim
		}
	}
	dir, t.token, err = tokenShim(private, exe, socket)
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		// hooks and relays: the swetouch beside the shim, shown as its
		// session's copy
		t.clients = []string{exe, filepath.Join(filepath.Dir(exe), "swetouch")}
	}
	return dir, t, err
}

func tokenShim(private, exe, socket string) (dir, token string, err error) {
	if token, err = session.NewToken(); err != nil {
		return "", "", err
	}
	own := filepath.Join(private, "shim")
	if err := os.Mkdir(own, 0o711); err != nil {
		return "", "", err
	}
	copied := filepath.Join(own, "swetouch-shim")
	if err := session.TokenedCopy(exe, copied, token, socket); err != nil {
		dir, err := shims(private, exe)
		return dir, "", err
	}
	dir, err = shims(private, copied)
	return dir, token, err
}

// tokenedOver is, for each file the runner shows in another's place
// (swetouch as its scrubbed copy), and for the swetouch beside the shim
// when the runner shows it as it is (clients), a copy of the file shown
// carrying the session's token, made in dir: swetouch's hooks and relays
// in the sandbox open their connections with it, as the shim does. A file
// with no token slot is shown as it was.
func tokenedOver(r *sandbox.Runner, clients []string, dir, token, socket string) map[string]string {
	if r == nil || token == "" {
		return nil
	}
	shown := maps.Clone(r.Over)
	if shown == nil {
		shown = map[string]string{}
	}
	for _, exe := range clients {
		if _, ok := shown[exe]; !ok && filepath.Base(exe) == "swetouch" {
			if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() {
				shown[exe] = exe // shown as it is: its token-carrying copy instead
			}
		}
	}
	out := map[string]string{}
	for i, exe := range slices.Sorted(maps.Keys(shown)) {
		dst := filepath.Join(dir, "over-"+strconv.Itoa(i)+"-"+filepath.Base(exe))
		if session.TokenedCopy(shown[exe], dst, token, socket) == nil {
			out[exe] = dst
		}
	}
	return out
}
