package container

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// DefaultPackages are the Debian packages every environment image gets:
// Python and pytest (the tasks' tests), git (agents ask it), and
// bubblewrap, which the trial's sandbox inside the container needs.
var DefaultPackages = []string{"python3", "python3-pip", "python3-pytest", "git", "bubblewrap", "ca-certificates"}

// DefaultWorkdir is where the repository is, as in SWE-bench's images.
const DefaultWorkdir = "/testbed"

// Spec is one environment image.
type Spec struct {
	// Tag names the image (e.g. localhost/swetouch-env/NAME:latest).
	Tag string
	// Repo is a local git repository holding Commit; Commit is the
	// task's base commit, its full hash.
	Repo, Commit string
	// Workdir is where the checkout goes (default DefaultWorkdir).
	Workdir string
	// Packages are Debian packages beyond DefaultPackages.
	Packages []string
	// Pip are pip requirement lines, installed after the packages
	// (--break-system-packages: the image is the task's alone).
	Pip []string
	// Suite is the Debian release (default DefaultSuite).
	Suite string
}

// Option adjusts a build.
type Option func(*builder)

// WithLog sends the build's output (debootstrap, apt, the runtime's)
// to w.
func WithLog(w io.Writer) Option { return func(b *builder) { b.log = w } }

// WithCache keeps the base's root file system under dir (default
// CacheDir()).
func WithCache(dir string) Option { return func(b *builder) { b.cache = dir } }

type builder struct {
	log   io.Writer
	cache string
}

// Build makes the image spec names: the Debian base (Base), then a
// Containerfile adding the packages, the pip requirements and the
// repository at its base commit alone (Checkout). The package layers
// come before the repository, so images of one environment share them.
func Build(ctx context.Context, rt *Runtime, spec Spec, opts ...Option) error {
	b := builder{log: io.Discard}
	for _, o := range opts {
		o(&b)
	}
	if b.cache == "" {
		d, err := CacheDir()
		if err != nil {
			return err
		}
		b.cache = d
	}
	if err := spec.Check(); err != nil {
		return err
	}
	base, err := Base(ctx, rt, b.cache, spec.Suite, b.log)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "swetouch-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := Checkout(ctx, spec.Repo, spec.Commit, filepath.Join(dir, "repo")); err != nil {
		return fmt.Errorf("%s at %s: %w", spec.Repo, spec.Commit, err)
	}
	if len(spec.Pip) > 0 {
		if err := os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte(strings.Join(spec.Pip, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(spec.containerfile(base)), 0o644); err != nil {
		return err
	}
	old := rt.imageID(ctx, spec.Tag)
	// the build's RUN steps fetch from Debian's mirror and PyPI: the
	// host's network, as apt-get on the host has it (no bridge to set up)
	c := rt.Command(ctx, "build", "--network", "host", "-t", spec.Tag, "-f", filepath.Join(dir, "Containerfile"), dir)
	c.Stdout, c.Stderr = b.log, b.log
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s build %s: %v", rt.Name, spec.Tag, err)
	}
	if old != "" && old != rt.imageID(ctx, spec.Tag) {
		// a rebuild replaces its image: the one it untagged goes, unless
		// a container still uses it (rmi without force refuses then)
		rt.Command(ctx, "rmi", old).Run()
	}
	return nil
}

// containerfile is the image's recipe over base.
func (s Spec) containerfile(base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n", base)
	pkgs := append(append([]string{}, DefaultPackages...), s.Packages...)
	fmt.Fprintf(&b, "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends %s && rm -rf /var/lib/apt/lists/*\n", strings.Join(pkgs, " "))
	if len(s.Pip) > 0 {
		b.WriteString("COPY requirements.txt /tmp/swetouch-requirements.txt\n")
		b.WriteString("RUN python3 -m pip install --no-cache-dir --break-system-packages -r /tmp/swetouch-requirements.txt && rm /tmp/swetouch-requirements.txt\n")
	}
	w := s.workdir()
	fmt.Fprintf(&b, "COPY repo %s\n", w)
	fmt.Fprintf(&b, "LABEL swetouch.base_commit=%s swetouch.workdir=%s\n", s.Commit, w)
	fmt.Fprintf(&b, "WORKDIR %s\n", w)
	return b.String()
}

func (s Spec) workdir() string {
	if s.Workdir == "" {
		return DefaultWorkdir
	}
	return s.Workdir
}

// debName is a Debian package name, optionally with =VERSION; pipLine a
// requirement without shell or option syntax. Both go into the
// Containerfile, so nothing else may.
var (
	debName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+~:-]+)?$`)
	pipLine = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._\-\[\],]*\s*([<>=!~]=?\s*[A-Za-z0-9.*+!-]+\s*,?\s*)*$`)
	tagName = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_.-]+)?$`)
)

// Check refuses a spec whose names could not be built or would reach the
// Containerfile as more than names.
func (s Spec) Check() error {
	switch {
	case !tagName.MatchString(s.Tag):
		return fmt.Errorf("image tag: want lower-case name[:tag], got %q", s.Tag)
	case s.Repo == "":
		return fmt.Errorf("repository: missing")
	case !path.IsAbs(s.workdir()) || path.Clean(s.workdir()) != s.workdir() || s.workdir() == "/":
		return fmt.Errorf("workdir: want a clean absolute path other than /, got %q", s.Workdir)
	}
	for _, p := range s.Packages {
		if !debName.MatchString(p) {
			return fmt.Errorf("package %q: not a Debian package name", p)
		}
	}
	for _, p := range s.Pip {
		if !pipLine.MatchString(p) {
			return fmt.Errorf("pip requirement %q: want NAME[extras] and version specifiers only", p)
		}
	}
	return nil
}
