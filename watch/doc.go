// Package watch turns file changes in a workspace into edit events with the
// exact changed line ranges. It reads the kernel's inotify queue on Linux
// (fsnotify elsewhere), keeps content snapshots (taken lazily: a file's content
// before its first change comes from the run's baseline), and offers a barrier, Sync, after which every
// change made before the call has been seen: a command's changes are never
// missed at its end.
package watch
