package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/safefile"
	"mvdan.cc/sh/v3/syntax"
)

// FileSource gives the content of repo-relative files, for example a checkout
// of the run's base. It lets the classifier resolve scopes the command text
// alone cannot state (the last N lines of a file, scripts run from disk).
type FileSource interface {
	ReadFile(path string) ([]byte, error)
}

// DirSource reads files from a directory.
type DirSource string

// ReadFile reads a repo-relative path under the directory.
func (d DirSource) ReadFile(p string) ([]byte, error) {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "../") {
		return nil, os.ErrNotExist
	}
	// what the agent left may be a FIFO: the classifier never waits
	return safefile.ReadIn(string(d), p)
}

// Option configures a Session.
type Option func(*Session)

// WithRoot names the workspace root; paths under it become repo-relative.
// The container roots /testbed and /app are always stripped.
func WithRoot(root string) Option {
	return func(s *Session) {
		if root != "" {
			s.roots = append([]string{filepath.ToSlash(filepath.Clean(root))}, s.roots...)
		}
	}
}

// WithCwd sets the working directory commands start in, absolute or
// relative to the root.
func WithCwd(dir string) Option { return func(s *Session) { s.startCwd = dir } }

// WithFiles gives the classifier a view of the workspace's files as they
// are now (a live run's workspace).
func WithFiles(fs FileSource) Option { return func(s *Session) { s.files, s.base = fs, false } }

// WithBase gives the classifier the run's base checkout (an imported
// recording classified with --root). A file a command changed in ways the
// session could not replay is then no longer read from it: its lines have
// moved, and a range resolved from the base would be wrong. Such a file's
// reads stay whole-file until a command restores it or writes it whole.
func WithBase(fs FileSource) Option { return func(s *Session) { s.files, s.base = fs, true } }

// KeepCwd makes a `cd` persist from one command to the next, as in a
// persistent shell; by default every command starts in the start directory,
// as in mini-swe-agent.
func KeepCwd() Option { return func(s *Session) { s.keepCwd = true } }

// Session classifies the commands of one run. It remembers what earlier
// commands wrote (a script written by a heredoc and run later is classified
// by its content) and which files the agent has changed (so `git stash` or
// `git checkout .` is known to touch them).
type Session struct {
	roots    []string
	startCwd string
	keepCwd  bool
	files    FileSource
	base     bool // files is the base checkout, not the workspace as it is
	parser   *syntax.Parser

	cwd     string
	written map[string]string // path -> content written by an earlier command
	dirty   map[string]bool   // files the agent edited since the last reset
	// stale are files changed since the base by a command whose writes
	// the session could not replay: the base no longer tells their content
	stale   map[string]bool
	stashed []string
	pyKnown map[string]*pyFacts // what scripts' texts name, by text
	// nodes hold the quick parse's trees, reused command to command; nil
	// gives each tree nodes of its own
	nodes *nodes
}

// NewSession returns a classifier session.
func NewSession(opts ...Option) *Session {
	s := &Session{
		roots:   []string{"/testbed", "/app"},
		parser:  syntax.NewParser(syntax.Variant(syntax.LangBash)),
		written: map[string]string{},
		dirty:   map[string]bool{},
		stale:   map[string]bool{},
		pyKnown: map[string]*pyFacts{},
		nodes:   &nodes{},
	}
	for _, o := range opts {
		o(s)
	}
	s.cwd = s.normDir(s.startCwd)
	return s
}

// Classify classifies one command without session state.
func Classify(command string, opts ...Option) *Result {
	return NewSession(opts...).Classify(command)
}

// Classify classifies one command and updates the session's memory.
func (s *Session) Classify(command string) *Result { return s.classify(command, nil) }

// ClassifyAt classifies a command that ran in directory cwd (absolute, or
// relative to the root), with its output when known: a live shim knows
// both.
func (s *Session) ClassifyAt(cwd, command string, obs *Observation) *Result {
	s.cwd = s.normDir(cwd)
	return s.walk(command, obs)
}

func (s *Session) classify(command string, obs *Observation) *Result {
	if !s.keepCwd {
		s.cwd = s.normDir(s.startCwd)
	}
	return s.walk(command, obs)
}

func (s *Session) walk(command string, obs *Observation) *Result {
	if s.nodes != nil {
		s.nodes.reset() // the last command's tree is done with
	}
	w := &walker{s: s, res: &Result{}, cwd: s.cwd, vars: nil}
	f, err := s.parse(command)
	if err != nil {
		w.res.Fallback = true
		w.res.Err = err.Error()
		w.tokenRules(command)
	} else {
		w.stmts(f.Stmts)
	}
	if obs != nil {
		w.refine(obs)
	}
	w.finish()
	for _, p := range w.changed {
		s.stale[p] = true
	}
	if s.keepCwd {
		s.cwd = w.cwd
	}
	w.res.Cwd = w.cwd
	return w.res
}

// normDir turns a start directory into the walker's cwd form: relative to
// the root ("" is the root), or absolute when outside it.
func (s *Session) normDir(d string) string {
	if d == "" {
		return ""
	}
	p, ok := s.join("", d)
	if !ok || p == "." {
		return ""
	}
	return p
}

// join resolves p against cwd and returns it repo-relative (or absolute when
// outside the workspace). ok is false for things that are not paths.
func (s *Session) join(cwd, p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, unknownRune) || strings.HasPrefix(p, "-") {
		return "", false
	}
	if strings.HasPrefix(p, "~") {
		return p, true
	}
	var j string
	switch {
	case strings.HasPrefix(p, "/"):
		j = cleanSlash(p)
	case strings.HasPrefix(cwd, "/"):
		j = cleanSlash(cwd + "/" + p)
	case cwd == "":
		j = cleanSlash(p)
	default:
		j = cleanSlash(cwd + "/" + p)
	}
	// a relative path that climbs out of the workspace names a file
	// outside it, never one under it
	j = s.escaped(j)
	if strings.HasPrefix(j, "/") {
		if j == "/dev/null" || strings.HasPrefix(j, "/dev/") || strings.HasPrefix(j, "/proc/") {
			return "", false
		}
		for _, r := range s.roots {
			if j == r {
				return ".", true
			}
			if strings.HasPrefix(j, r+"/") {
				return j[len(r)+1:], true
			}
		}
	}
	return j, true
}

// edited forgets what the session knew of a file a command changes: its
// written content now, and (with a base checkout) the base's once the
// command is over, since what the command itself read was the file as it
// was. A command that knows what it wrote says so afterwards.
func (w *walker) edited(p string) {
	if p == "" || strings.HasPrefix(p, "/") {
		return
	}
	delete(w.s.written, p)
	if !slices.Contains(w.changed, p) {
		w.changed = append(w.changed, p)
	}
}

// restored marks a file back at its base content (git checkout, stash).
func (w *walker) restored(p string) {
	delete(w.s.written, p)
	delete(w.s.stale, p)
	w.changed = slices.DeleteFunc(w.changed, func(c string) bool { return c == p })
}

// escaped turns a relative path that climbs out of the workspace
// ("../opt/x") into the absolute path it names under the first root, so
// it is never taken for a workspace file.
func (s *Session) escaped(p string) string {
	if p != ".." && !strings.HasPrefix(p, "../") || len(s.roots) == 0 {
		return p
	}
	return cleanSlash(s.roots[0] + "/" + p)
}

func cleanSlash(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// content returns what the session knows of a file: what an earlier command
// wrote, else the file source (a base checkout only for files no command
// has changed since).
func (s *Session) content(p string) (string, bool) {
	if c, ok := s.written[p]; ok {
		return c, true
	}
	if s.base && s.stale[p] {
		return "", false
	}
	if s.files != nil && p != "" && !strings.HasPrefix(p, "/") {
		if b, err := s.files.ReadFile(p); err == nil {
			return string(b), true
		}
	}
	return "", false
}
