package fastjson

import (
	"os"
	"sync"
)

// ReferenceEnv, set to 1, makes every caller of this package read and
// write its JSON with encoding/json instead, as the shim's
// SWETOUCH_SHIM_GO=1 makes it take its Go path: to tell a bug of the
// hand-written path from one of the caller, and to run the callers'
// tests against the reference (the callers' own fallbacks are that
// reference already; the switch sends everything down them).
const ReferenceEnv = "SWETOUCH_REFERENCE"

// reference is read once: the callers ask on every message.
var reference = sync.OnceValue(func() bool { return os.Getenv(ReferenceEnv) == "1" })

// Reference reports whether SWETOUCH_REFERENCE=1 was set when the process
// first asked: callers then skip their hand-written reading or writing
// and take their encoding/json path.
func Reference() bool { return reference() }
