package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/swebench"
)

// tasksCmd writes runnable tasks from a benchmark's own dataset.
func tasksCmd() *cobra.Command {
	c := &cobra.Command{Use: "tasks", Short: "Write runnable task directories from a benchmark's dataset"}
	c.AddCommand(tasksSWEbenchCmd())
	return c
}

// swebenchTasks are the options of `swetouch tasks swebench`.
type swebenchTasks struct {
	instances, out, image, repo string
	ids                         []string
}

func tasksSWEbenchCmd() *cobra.Command {
	o := swebenchTasks{image: swebench.DefaultImage}
	c := &cobra.Command{
		Use:   "swebench --instances FILE --out DIR [--ids A,B] [--image TEMPLATE] [--repo GITDIR]",
		Short: "Write one Harbor task directory per SWE-bench instance (graded per test as SWE-bench grades)",
		Long: "Reads SWE-bench instances (JSON lines or a JSON array, as the dataset is distributed) and writes\n" +
			"DIR/INSTANCE_ID/ for each: instruction.md, task.toml ([metadata] name, [environment] docker_image and\n" +
			"workdir = \"/testbed\"), tests/test.sh (SWE-bench's evaluation for the repository and version, its\n" +
			"log graded by `swetouch grade`), tests/test.patch, tests/config.json, solution/solve.sh (the gold\n" +
			"patch). The code lives in the image; --repo puts the base commit's tree in repo/ from a local git\n" +
			"directory, so the task runs on this host too. --image is a template: {id} (SWE-bench's image name\n" +
			"of the instance), {instance_id}, {repo}, {version}.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c.OutOrStdout()) },
	}
	c.Flags().StringVar(&o.instances, "instances", "", "the SWE-bench instances (JSONL or a JSON array)")
	c.Flags().StringVar(&o.out, "out", "", "where to write the task directories")
	c.Flags().StringSliceVar(&o.ids, "ids", nil, "only these instance ids (comma-separated)")
	c.Flags().StringVar(&o.image, "image", o.image, "the docker_image template")
	c.Flags().StringVar(&o.repo, "repo", "", "a git directory of the repository: its base commit's tree goes in each task's repo/")
	c.MarkFlagRequired("instances")
	c.MarkFlagRequired("out")
	return c
}

func (o swebenchTasks) run(w io.Writer) error {
	ins, err := swebench.ReadInstances(o.instances)
	if err != nil {
		return badInput("--instances: %v", err)
	}
	if len(o.ids) > 0 {
		var missing []string
		for _, id := range o.ids {
			if !slices.ContainsFunc(ins, func(in swebench.Instance) bool { return in.InstanceID == id }) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return badInput("--ids: %s not in %s", strings.Join(missing, ", "), o.instances)
		}
		ins = slices.DeleteFunc(ins, func(in swebench.Instance) bool { return !slices.Contains(o.ids, in.InstanceID) })
	}
	if _, err := swebench.ImageName(o.image, swebench.Instance{InstanceID: "x__y-1", Repo: "x/y"}); err != nil {
		return badInput("--image: %v", err)
	}
	opts := []swebench.WriteOption{swebench.WithImage(o.image)}
	if o.repo != "" {
		opts = append(opts, swebench.WithRepo(o.repo))
	}
	for _, in := range ins {
		dir, err := swebench.WriteTask(in, o.out, opts...)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, dir)
	}
	return nil
}
