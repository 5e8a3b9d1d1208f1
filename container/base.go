package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// DefaultSuite is the Debian release a base is made of.
const DefaultSuite = "bookworm"

// BaseImage is the name the base of suite is imported under.
func BaseImage(suite string) string { return "localhost/swetouch-base:" + suite }

// ErrNoDebootstrap is the error of Base when debootstrap is missing and
// no root file system is cached.
var ErrNoDebootstrap = errors.New("no debootstrap")

// Base makes sure the runtime holds the Debian base image of suite, and
// returns its name. The root file system comes from debootstrap
// --variant=minbase (no registry: Debian's mirror, as apt-get reaches it)
// and is cached as a tarball under cache, so a second machine state, or
// a runtime whose images were pruned, imports it again without
// bootstrapping; log receives debootstrap's output.
func Base(ctx context.Context, rt *Runtime, cache, suite string, log io.Writer) (string, error) {
	if suite == "" {
		suite = DefaultSuite
	}
	ref := BaseImage(suite)
	if rt.HasImage(ctx, ref) {
		return ref, nil
	}
	tarball, err := Rootfs(ctx, cache, suite, log)
	if err != nil {
		return "", err
	}
	if _, err := rt.Output(ctx, "import", "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", tarball, ref); err != nil {
		return "", err
	}
	return ref, nil
}

// Rootfs is the cached root file system of suite (a tar), made with
// debootstrap when it is not cached yet. A tarball is written whole or
// not at all, so a bootstrap cut short leaves nothing that looks cached.
func Rootfs(ctx context.Context, cache, suite string, log io.Writer) (string, error) {
	tarball := filepath.Join(cache, "rootfs", suite+"-minbase.tar")
	if st, err := os.Stat(tarball); err == nil && st.Mode().IsRegular() {
		return tarball, nil
	}
	deb, err := exec.LookPath("debootstrap")
	if err != nil {
		return "", fmt.Errorf("%w: the base image needs debootstrap once (Debian: apt-get install debootstrap), or a root file system at %s", ErrNoDebootstrap, tarball)
	}
	if err := os.MkdirAll(filepath.Dir(tarball), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Dir(tarball), ".bootstrap-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "root")
	c := exec.CommandContext(ctx, deb, "--variant=minbase", suite, root)
	c.Stdout, c.Stderr = log, log
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("debootstrap %s: %v (its output is above)", suite, err)
	}
	// apt's caches are not the image's: the packages a build adds are
	// fetched fresh
	for _, d := range []string{"var/cache/apt/archives", "var/lib/apt/lists"} {
		clearDir(filepath.Join(root, d))
	}
	tmp := filepath.Join(work, "rootfs.tar")
	tarc := exec.CommandContext(ctx, "tar", "--numeric-owner", "--xattrs", "-C", root, "-cf", tmp, ".")
	if out, err := tarc.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tar of the root file system: %v: %s", err, out)
	}
	if err := os.Rename(tmp, tarball); err != nil {
		return "", err
	}
	return tarball, nil
}

// clearDir removes what dir holds but the directory itself and its
// partial/ and lock (apt expects them).
func clearDir(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() == "partial" || e.Name() == "lock" {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// CacheDir is where images' root file systems and swetouch's
// containers.conf are kept: $SWETOUCH_CACHE, else the user's cache
// directory's swetouch/containers.
func CacheDir() (string, error) {
	if d := os.Getenv("SWETOUCH_CACHE"); d != "" {
		return filepath.Join(d, "containers"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "swetouch", "containers"), nil
}
