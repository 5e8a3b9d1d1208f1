package patch

import "io/fs"

type fsMode = fs.FileMode

var errNotExist = fs.ErrNotExist
