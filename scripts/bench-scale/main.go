// Command bench-scale measures score, report and eval --emit at the scale
// of a large benchmark run (issue 54): it copies the demo's trial folders
// until there are -trials of them (each copy a new batch of tasks, five
// runs a task, in eval's layout), then runs the swetouch binary on them as
// a user would and measures each command's wall time and peak memory
// (the child's maximum RSS), the report's size, the time headless
// Chromium takes to load report.html, and eval --emit k8s of -emit
// trials. It prints the figures as a table against issue 54's budgets.
//
// Run: go run ./scripts/bench-scale [-trials 100000] [-emit 10000] [-keep DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/swetouch/swetouch/score"
)

func main() {
	trials := flag.Int("trials", 100000, "trials to generate and score")
	emitN := flag.Int("emit", 10000, "trials to emit as Kubernetes Jobs")
	keep := flag.String("keep", "", "generate into this folder and keep it (reused when it already holds the trials)")
	bin := flag.String("swetouch", "", "the swetouch binary (default: built from this checkout)")
	browser := flag.String("chromium", "chromium", "headless Chromium to open the report in (\"\" to skip)")
	genOnly := flag.Bool("generate", false, "with -keep: only generate the trials")
	flag.Parse()
	if *genOnly && *keep == "" {
		fmt.Fprintln(os.Stderr, "bench-scale: -generate needs -keep")
		os.Exit(2)
	}
	if err := run(*trials, *emitN, *keep, *bin, *browser, *genOnly); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
}

func run(n, emitN int, keep, bin, browser string, genOnly bool) error {
	tmp, err := os.MkdirTemp("", "bench-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "swetouch")
		build := exec.Command("go", "build", "-o", bin, "./cmd/swetouch")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building swetouch: %v", err)
		}
	}
	root := keep
	if root == "" {
		root = filepath.Join(tmp, "trials")
	}
	results := filepath.Join(root, "results")
	if have, _ := countResults(results); have != n {
		demo := filepath.Join(tmp, "demo")
		if err := runQuiet(bin, "demo", "--report", demo); err != nil {
			return fmt.Errorf("swetouch demo: %v", err)
		}
		os.RemoveAll(results)
		t0 := time.Now()
		if err := generate(demo, results, n); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated %d trials from the demo's in %.1f s\n", n, time.Since(t0).Seconds())
	}
	if genOnly {
		return nil
	}
	var rows []row
	// the first score over the folder reads every trial and writes its
	// index; the rest read the index
	os.Remove(filepath.Join(results, score.IndexFile))
	m, err := measureOnce(bin, "score", results)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("score, %d trials, the first (no index: writes it)", n), m.String(), "", true})
	m, err = measure(bin, "score", results)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("score, %d trials", n), m.String(), "2 s, 1 GiB", m.wall <= 2*time.Second && m.rss <= 1<<30})
	floor, err := measure("sh", "-c", "find "+results+" -name result.json | xargs cat")
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("floor: `find | xargs cat` of the %d result.json", n), floor.String(), "", true})
	out := filepath.Join(tmp, "report")
	os.Remove(filepath.Join(results, score.TimelinesFile))
	m, err = measureOnce(bin, "report", results, "--out", out)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("report, %d trials, the first (no timelines kept: writes them)", n), m.String(), "", true})
	m, err = measure(bin, "report", results, "--out", out)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("report, %d trials", n), m.String(), "10 s, 1 GiB", m.wall <= 10*time.Second && m.rss <= 1<<30})
	page := filepath.Join(out, "report.html")
	for _, f := range []struct{ name, budget string }{{"report.html", "5 MB"}, {"report.json", ""}} {
		st, err := os.Stat(filepath.Join(out, f.name))
		if err != nil {
			return err
		}
		ok := f.budget == "" || st.Size() <= 5_000_000
		rows = append(rows, row{f.name, fmt.Sprintf("%.1f MB", float64(st.Size())/1e6), f.budget, ok})
	}
	if browser != "" {
		load, blank, err := openTime(browser, page, tmp)
		if err != nil {
			return err
		}
		rows = append(rows, row{"report.html loaded in headless Chromium", fmt.Sprintf("%.2f s (a blank page: %.2f s)", load.Seconds(), blank.Seconds()), "5 s", load <= 5*time.Second})
	}
	em, err := emitBench(bin, tmp, emitN)
	if err != nil {
		return err
	}
	rows = append(rows, row{fmt.Sprintf("eval --emit k8s, %d trials", emitN), em.String(), "1 s", em.wall <= time.Second})
	printTable(os.Stdout, rows)
	fmt.Printf("\nthe best of 3 runs each; the machine's load average at the end: %s\n", loadavg())
	return nil
}

// row is one line of the table.
type row struct {
	what, measured, budget string
	ok                     bool
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| what | measured | budget | |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		mark := "within"
		if !r.ok {
			mark = "**over**"
		}
		if r.budget == "" {
			mark = ""
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.what, r.measured, r.budget, mark)
	}
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func runQuiet(bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}
