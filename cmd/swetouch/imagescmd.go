package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/container"
	"github.com/swetouch/swetouch/task"
)

// imagesCmd is `swetouch images`: tasks' environment images made here,
// with no registry (docs/containers.md).
func imagesCmd() *cobra.Command {
	c := &cobra.Command{Use: "images", Short: "Build tasks' environment images from a Debian base (no registry), for run --runtime"}
	c.AddCommand(imagesBuildCmd(), imagesInsideCmd())
	return c
}

func imagesBuildCmd() *cobra.Command {
	var spec container.Spec
	var runtime, taskDir, cache, instances, template string
	var ids []string
	var quiet bool
	c := &cobra.Command{
		Use:   "build --repo DIR (--commit HASH (--tag NAME | --task DIR) | --instances FILE [--ids ID,...]) [--package P]... [--pip REQ]...",
		Short: "Build an environment image: debootstrap's Debian (cached), the packages, the repository at its base commit with none of its later history",
		Long: "One image (--commit and --tag, or --task whose task.toml names it), or one per SWE-bench row of\n" +
			"--instances (JSONL or a JSON array, as the dataset is distributed; --ids picks), each named by\n" +
			"--image (default SWE-bench's own naming) from the row's base commit in --repo, with the packages\n" +
			"its repository needs as far as they are known here. Prints each image's name.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if instances != "" {
				return buildInstances(c, instances, ids, template, spec, runtime, cache, quiet)
			}
			if taskDir != "" {
				img, wd, err := task.Environment(taskDir)
				if err != nil {
					return badInput("--task: %v", err)
				}
				if spec.Tag == "" {
					spec.Tag = img
				}
				if spec.Workdir == "" {
					spec.Workdir = wd
				}
			}
			switch {
			case spec.Tag == "":
				return badInput("--tag: name the image (or give --task DIR whose task.toml names it in [environment] docker_image)")
			case spec.Repo == "":
				return badInput("--repo: the local git repository holding the base commit")
			case spec.Commit == "":
				return badInput("--commit: the base commit's full hash")
			}
			if err := spec.Check(); err != nil {
				return badInput("%v", err)
			}
			if cache == "" {
				d, err := container.CacheDir()
				if err != nil {
					return err
				}
				cache = d
			}
			rt, err := container.Find(runtime, cache)
			if err != nil {
				return badInput("%v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := []container.Option{container.WithCache(cache)}
			if !quiet {
				opts = append(opts, container.WithLog(c.ErrOrStderr()))
			}
			if err := container.Build(ctx, rt, spec, opts...); err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), spec.Tag)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&spec.Repo, "repo", "", "a local git repository holding the base commit (read, never changed)")
	f.StringVar(&spec.Commit, "commit", "", "the base commit, its full 40-digit hash")
	f.StringVar(&spec.Tag, "tag", "", "the image's name, e.g. localhost/swetouch-env/NAME:latest (default: --task's docker_image)")
	f.StringVar(&taskDir, "task", "", "a Harbor task whose task.toml names the image and workdir ([environment] docker_image, workdir)")
	f.StringVar(&spec.Workdir, "workdir", "", "where the repository goes in the image (default "+container.DefaultWorkdir+")")
	f.StringArrayVar(&spec.Packages, "package", nil, "a Debian package the environment needs beyond python3, pytest, pip, git and bubblewrap (repeat)")
	f.StringArrayVar(&spec.Pip, "pip", nil, "a pip requirement, e.g. numpy==1.26.4 (repeat)")
	f.StringVar(&spec.Suite, "suite", container.DefaultSuite, "the Debian release debootstrap makes the base of")
	f.StringVar(&runtime, "runtime", container.Podman, "podman or docker")
	f.StringVar(&cache, "cache", "", "where the base's root file system is kept (default $SWETOUCH_CACHE/containers, else the user cache's swetouch/containers)")
	f.BoolVar(&quiet, "quiet", false, "do not print debootstrap's and the build's output")
	f.StringVar(&instances, "instances", "", "SWE-bench rows (JSONL or a JSON array): an image for each, from --repo")
	f.StringSliceVar(&ids, "ids", nil, "with --instances: the rows to build (default all)")
	f.StringVar(&template, "image", container.DefaultImageName, "with --instances: each image's name, {id} the instance id (its __ written _1776_, as SWE-bench names its images)")
	return c
}

// buildInstances builds an image for each row of a SWE-bench file.
func buildInstances(c *cobra.Command, path string, ids []string, template string, base container.Spec, runtime, cache string, quiet bool) error {
	switch {
	case base.Commit != "" || base.Tag != "":
		return badInput("--instances: each row names its commit and image; give no --commit or --tag")
	case base.Repo == "":
		return badInput("--repo: the local git repository holding the rows' base commits")
	case !strings.Contains(template, "{id}"):
		return badInput("--image: %q has no {id}: every row's image would have one name", template)
	}
	rows, err := container.ReadInstances(path)
	if err != nil {
		return badInput("--instances: %v", err)
	}
	var pick []container.Instance
	for _, r := range rows {
		if len(ids) == 0 || slices.Contains(ids, r.InstanceID) {
			pick = append(pick, r)
		}
	}
	for _, id := range ids {
		if !slices.ContainsFunc(pick, func(r container.Instance) bool { return r.InstanceID == id }) {
			return badInput("--ids: %s is not in %s", id, path)
		}
	}
	if slices.ContainsFunc(pick, func(r container.Instance) bool { return r.Repo != pick[0].Repo }) {
		return badInput("--instances: the rows are of more than one repository; pick one's with --ids (--repo is one repository)")
	}
	var specs []container.Spec
	for _, r := range pick {
		s := container.SpecFor(r, base.Repo, template, base.Packages, base.Pip)
		s.Workdir, s.Suite = base.Workdir, base.Suite
		if err := s.Check(); err != nil {
			return badInput("%s: %v", r.InstanceID, err)
		}
		specs = append(specs, s)
	}
	if cache == "" {
		if cache, err = container.CacheDir(); err != nil {
			return err
		}
	}
	rt, err := container.Find(runtime, cache)
	if err != nil {
		return badInput("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := []container.Option{container.WithCache(cache)}
	if !quiet {
		opts = append(opts, container.WithLog(c.ErrOrStderr()))
	}
	for _, s := range specs {
		if err := container.Build(ctx, rt, s, opts...); err != nil {
			return err
		}
		fmt.Fprintln(c.OutOrStdout(), s.Tag)
	}
	return nil
}

// imagesInsideCmd is what a trial's container runs first: the history
// of the image's checkout pruned to its HEAD (container.Prune), the
// container's end of the model relay (listening on the endpoint's
// loopback address inside, each connection taken to the socket the host
// serves), then the command after -- (the trial's swetouch run), whose
// exit code it exits with.
func imagesInsideCmd() *cobra.Command {
	var relays []string
	var prune, path string
	c := &cobra.Command{
		Use:    "inside [--prune DIR] [--relay ADDR=SOCKET]... [--path DIR] -- COMMAND...",
		Short:  "Inside a trial's container: prune the checkout's history, relay the host's endpoints, run COMMAND",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if prune != "" {
				if err := container.Prune(c.Context(), prune); err != nil {
					return fmt.Errorf("the image's history: %w", err)
				}
			}
			for _, rl := range relays {
				addr, sock, ok := strings.Cut(rl, "=")
				if !ok {
					return badInput("--relay: want ADDR=SOCKET, got %q", rl)
				}
				r, err := container.ListenInside(addr, sock)
				if err != nil {
					return err
				}
				defer r.Close()
			}
			if path != "" {
				// the host's programs first, the image's PATH (a conda
				// environment's, say) after
				os.Setenv("PATH", path+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, c.OutOrStdout(), c.ErrOrStderr()
			if err := cmd.Start(); err != nil {
				return err
			}
			// the runtime's stop reaches this process: passed on, so the
			// run writes its files
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			go func() {
				for s := range sig {
					cmd.Process.Signal(s)
				}
			}()
			err := cmd.Wait()
			signal.Stop(sig)
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exitError{exit.ExitCode()}
			}
			return err
		},
	}
	c.Flags().StringVar(&prune, "prune", "", "the image's checkout, to hold its HEAD commit alone")
	c.Flags().StringVar(&path, "path", "", "a folder to put first on PATH (the host's programs the agent needs)")
	c.Flags().StringArrayVar(&relays, "relay", nil, "a loopback address to serve inside, relayed to the host's socket: ADDR=SOCKET (repeat)")
	return c
}
