//go:build !linux

package patch

import "io/fs"

func writeBeneath(root, rel string, data []byte, mode fs.FileMode) error { return errNoOpenat2 }

func removeBeneath(root, rel string) error { return errNoOpenat2 }
