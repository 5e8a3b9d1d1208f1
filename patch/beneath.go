//go:build linux

package patch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// parentBeneath opens the directory that holds rel inside root, creating
// the missing ones, with every step resolved by the kernel beneath root
// (RESOLVE_BENEATH): a directory swapped for a link out of the workspace
// between a check and the write cannot take the write there, as it could
// with paths. The caller closes the descriptor.
func parentBeneath(root, rel string) (int, string, error) {
	rootFD, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", err
	}
	defer unix.Close(rootFD)
	rel = filepath.ToSlash(filepath.Clean(rel))
	dir, base := filepath.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := openat2(rootFD, orDot(dir), how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, "", errNoOpenat2
	}
	if errors.Is(err, unix.ENOENT) {
		// make the missing directories one at a time, each beneath root
		parts := strings.Split(dir, "/")
		for i := range parts {
			sub := strings.Join(parts[:i+1], "/")
			d, err := openat2(rootFD, sub, how)
			if errors.Is(err, unix.ENOENT) {
				parent, perr := openat2(rootFD, orDot(strings.Join(parts[:i], "/")), how)
				if perr != nil {
					return -1, "", beneathError(rel, perr)
				}
				merr := unix.Mkdirat(parent, parts[i], 0o755)
				var st unix.Stat_t
				if merr == nil && unix.Fstat(parent, &st) == nil && st.Uid != 0 && unix.Geteuid() == 0 {
					// the folder's owner keeps it (see writeBeneath)
					merr = unix.Fchownat(parent, parts[i], int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW)
				}
				unix.Close(parent)
				if merr != nil && !errors.Is(merr, unix.EEXIST) {
					return -1, "", merr
				}
				continue
			}
			if err != nil {
				return -1, "", beneathError(rel, err)
			}
			unix.Close(d)
		}
		fd, err = openat2(rootFD, orDot(dir), how)
	}
	if err != nil {
		return -1, "", beneathError(rel, err)
	}
	return fd, base, nil
}

// openat2 is unix.Openat2 tried again while the kernel answers EAGAIN:
// a resolution beneath the root that climbs a ".." (a link's target may)
// gets EAGAIN whenever a rename or a mount anywhere on the system ran
// meanwhile, since the kernel cannot then rule out an escape; it says to
// retry. A patch applied while the agent's tests rename files failed so.
// The tries are bounded: a machine renaming without a pause gets the
// error, not a hang.
func openat2(dirfd int, path string, how *unix.OpenHow) (int, error) {
	for range openat2Tries - 1 {
		fd, err := unix.Openat2(dirfd, path, how)
		if err != unix.EAGAIN {
			return fd, err
		}
	}
	return unix.Openat2(dirfd, path, how)
}

// openat2Tries is how many times openat2 tries.
const openat2Tries = 1000

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func beneathError(rel string, err error) error {
	if errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ELOOP) {
		return &EscapeError{Path: rel, Link: true}
	}
	return err
}

// writeBeneath replaces root/rel with data by a file written in the same
// directory and renamed over it, all through the directory's descriptor.
func writeBeneath(root, rel string, data []byte, mode fs.FileMode) error {
	dir, base, err := parentBeneath(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var b [8]byte
	rand.Read(b[:])
	tmp := ".swetouch-" + hex.EncodeToString(b[:])
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, uint32(mode.Perm()))
	if err != nil {
		return err
	}
	defer unix.Unlinkat(dir, tmp, 0) // after a successful rename, a no-op
	// the folder's owner keeps the file: a sandbox that runs as a uid of
	// its trial's own (sandbox.HostUser) must still be able to edit what
	// a Counter-Edit wrote, as it could before
	var st unix.Stat_t
	if unix.Fstat(dir, &st) == nil && st.Uid != 0 && unix.Geteuid() == 0 {
		if err := unix.Fchown(fd, int(st.Uid), int(st.Gid)); err != nil {
			unix.Close(fd)
			return err
		}
	}
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err != nil {
			unix.Close(fd)
			return err
		}
		data = data[n:]
	}
	if err := unix.Fchmod(fd, uint32(mode.Perm())); err != nil {
		unix.Close(fd)
		return err
	}
	if err := unix.Close(fd); err != nil {
		return err
	}
	return unix.Renameat(dir, tmp, dir, base)
}

// removeBeneath removes root/rel through its directory's descriptor.
func removeBeneath(root, rel string) error {
	dir, base, err := parentBeneath(root, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	return unix.Unlinkat(dir, base, 0)
}
