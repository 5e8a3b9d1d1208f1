package patch

import "errors"

// errNoOpenat2 is a system without openat2 (not Linux, or Linux before
// 5.6): Dir then checks paths by resolving them, which a concurrent swap
// of a directory for a link can race.
var errNoOpenat2 = errors.New("openat2 unavailable")
