package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swetouch/swetouch/task"
)

// budgetFlag adds --workspace-budget to c; the function it returns is
// the verifier's options from it (none: task.DefaultBudget).
func budgetFlag(c *cobra.Command) func() ([]task.VerifyOption, error) {
	var s string
	d := task.DefaultBudget()
	c.Flags().StringVar(&s, "workspace-budget", "", fmt.Sprintf("the disk a workspace's copy for the tests may take (e.g. 500MiB, 4GiB; 0: no bound); past it, or with more than %d files, the trial is not resolved (default %d GiB, a file's holes not counted)", d.Files, d.Bytes>>30))
	return func() ([]task.VerifyOption, error) {
		if s == "" {
			return nil, nil
		}
		n, err := parseSize(s)
		if err != nil {
			return nil, badInput("--workspace-budget: %v", err)
		}
		b := d
		b.Bytes = n
		if n == 0 {
			b = task.Budget{}
		} else if b.Apparent < 8*n {
			b.Apparent = 8 * n
		}
		return []task.VerifyOption{task.WithBudget(b)}, nil
	}
}

// parseSize reads a size: a number of bytes with an optional KiB, MiB,
// GiB (or K, M, G) unit.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mul := int64(1)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mul = v, u.n
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("want a size such as 500MiB or 4GiB, got %q", s)
	}
	return int64(f * float64(mul)), nil
}
