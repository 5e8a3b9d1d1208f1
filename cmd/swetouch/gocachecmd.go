package main

import (
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/examples"
	"github.com/swetouch/swetouch/internal/gocache"
	"github.com/swetouch/swetouch/sandbox"
)

func gocacheCmd() *cobra.Command {
	var l gocache.Layers
	c := &cobra.Command{
		Use:    "gocache --base DIR --dir DIR",
		Short:  "A GOCACHEPROG server for sandboxes: reads the host's Go build cache, writes its own",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if l.Dir == "" {
				return badInput("--dir: required")
			}
			return l.Serve(os.Stdin, os.Stdout)
		},
	}
	c.Flags().StringSliceVar(&l.Base, "base", nil, "a Go build cache to read, never written (repeat)")
	c.Flags().StringVar(&l.Dir, "dir", "", "where builds are cached")
	return c
}

// sandboxGo is what runs in r's sandboxes add: this executable, which the
// agents' hooks call back and GOCACHEPROG runs, and the environment and
// paths that build Go quickly from the host's cache without being able to
// write it. Wherever a sandbox shows this executable it shows its copy
// without the examples' archive: inside, `swetouch examples extract`
// would print the example tasks' hidden tests, solutions and records.
func sandboxGo(r *sandbox.Runner, exe string) (sandbox.Setup, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	scrubbed, err := sandbox.Scrubbed(exe, filepath.Join(cache, "swetouch", "sandboxed"), examples.Archive())
	if err != nil {
		return sandbox.Setup{}, err
	}
	r.Over = map[string]string{exe: scrubbed}
	if bi, ok := debug.ReadBuildInfo(); ok && strings.Contains(bi.Main.Path, "/") {
		// the module's owner: its examples' sources under a module cache
		r.Hidden = gocache.ModuleDirs(path.Dir(bi.Main.Path))
	}
	env, visible := gocache.Sandboxed(exe)
	return sandbox.Setup{Runner: r, Env: env, Visible: append(visible, exe)}, nil
}
