package watch

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// identities follows the start's files through moves, hard links and
// replacement: an agent that edits the region through a hard link, or
// moves the file and edits it under its new name, edits the start's file
// all the same, and its changes are attributed to it (Change.Also).
//
// A file's identity goes with its name (sed -i and an editor's save by
// rename replace the file, and it is the same file), with a move (the
// kernel's rename events, paired by cookie, in order), and with its inode
// to a new name (a hard link; a move where no rename event was seen).
// Inodes are only compared among names seen holding them, so a number the
// kernel gives again to a new file makes it no start file.
type identities struct {
	// aliased says some path is a start's file under another name: until
	// one is, StartName answers without a system call
	aliased bool
	origin  map[string]string          // a path: the start's file it is
	last    map[string]uint64          // a path: its inode when last seen
	names   map[uint64]map[string]bool // an inode: the paths last seen with it
}

// move is one rename the kernel reported, of a file or a directory.
type move struct {
	from, to string
	dir      bool
}

func newIdentities() *identities {
	return &identities{origin: map[string]string{}, last: map[string]uint64{}, names: map[uint64]map[string]bool{}}
}

// inodeOf is the inode of a regular file at p (false for anything else).
func inodeOf(p string) (uint64, bool) {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return 0, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}

func (id *identities) seen(p string, ino uint64) {
	if old, ok := id.last[p]; ok {
		if old == ino {
			return
		}
		id.unname(p, old)
	}
	id.last[p] = ino
	if id.names[ino] == nil {
		id.names[ino] = map[string]bool{}
	}
	id.names[ino][p] = true
}

func (id *identities) unname(p string, ino uint64) {
	delete(id.names[ino], p)
	if len(id.names[ino]) == 0 {
		delete(id.names, ino)
	}
}

// moved carries identities through one rename: a file with one takes it
// to its new name; a file with none, renamed over one that has one (a
// save by rename), leaves the target's in place.
func (id *identities) moved(m move) {
	if !m.dir {
		if o, ok := id.origin[m.from]; ok {
			id.origin[m.to] = o
			id.aliased = id.aliased || o != m.to
			delete(id.origin, m.from)
		}
		return
	}
	prefix := m.from + "/"
	for p, o := range id.origin {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			delete(id.origin, p)
			id.origin[m.to+"/"+rest] = o
			id.aliased = true
		}
	}
}

// byInode is the start's file a name of ino is, if any.
func (id *identities) byInode(ino uint64, not string) (string, bool) {
	for n := range id.names[ino] {
		if o, ok := id.origin[n]; ok && n != not {
			return o, true
		}
	}
	return "", false
}

// startFiles records the start's files as they are in the workspace when
// watching begins.
func (w *Watcher) startFiles() {
	for _, rel := range w.base.Paths() {
		w.id.origin[rel] = rel
		if ino, ok := inodeOf(filepath.Join(w.root, filepath.FromSlash(rel))); ok {
			w.id.seen(rel, ino)
		}
	}
}

// follow carries identities through the moves since the last Sync and
// the paths about to be compared, and returns the other names of the
// files they touched (a write through a hard link changes every name of
// the file) and, for each path that is a start's file under another
// name, that file's name.
func (w *Watcher) follow(paths []string, moves []move) (more []string, also map[string]string) {
	if w.id == nil {
		return nil, nil
	}
	now := map[string]uint64{}
	for _, p := range paths {
		if ino, ok := inodeOf(filepath.Join(w.root, filepath.FromSlash(p))); ok {
			now[p] = ino
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	id := w.id
	for _, m := range moves {
		id.moved(m)
	}
	// a new name of a known inode is the file that inode was (a hard
	// link, or a move whose events were not seen), before the names now
	// gone are forgotten
	for p, ino := range now {
		if _, ok := id.origin[p]; !ok {
			if o, ok := id.byInode(ino, p); ok {
				id.origin[p] = o
				id.aliased = true
			}
		}
	}
	for _, p := range paths {
		if ino, ok := now[p]; ok {
			id.seen(p, ino)
			continue
		}
		// no regular file holds the name now; a link there keeps its
		// identity (a file replaced by a link), nothing there ends it
		if old, ok := id.last[p]; ok {
			id.unname(p, old)
			delete(id.last, p)
		}
		if _, err := os.Lstat(filepath.Join(w.root, filepath.FromSlash(p))); err != nil {
			delete(id.origin, p)
		}
	}
	inBatch := map[string]bool{}
	for _, p := range paths {
		inBatch[p] = true
	}
	for p, ino := range now {
		for n := range id.names[ino] {
			if !inBatch[n] {
				inBatch[n] = true
				more = append(more, n)
			}
		}
		if o, ok := id.origin[p]; ok && o != p {
			if also == nil {
				also = map[string]string{}
			}
			also[p] = o
		}
	}
	return more, also
}

// StartName is the start's file that rel is under another name (its new
// name after a move, a hard link to it), if it is one: a read of rel
// reads that file.
func (w *Watcher) StartName(rel string) (string, bool) {
	if w.id == nil {
		return "", false
	}
	w.mu.Lock()
	aliased := w.id.aliased
	w.mu.Unlock()
	if !aliased {
		return "", false
	}
	ino, hasIno := inodeOf(filepath.Join(w.root, filepath.FromSlash(rel)))
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.id.origin[rel]
	if !ok && hasIno {
		o, ok = w.id.byInode(ino, rel)
	}
	return o, ok && o != rel
}
