package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/swetouch/swetouch/run"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/shim"
)

// helperAbsPairs runs, inside a sandbox that puts the shim at the
// system's shells, `-c true` through /bin/bash and /bin/sh by absolute
// path and through the shim directory's bash (PATH's route), each paired
// with the real shell the sandbox keeps.
const helperAbsPairs = "__abspairs"

func absPairsHelper(args []string) {
	n, _ := strconv.Atoi(args[1])
	ws, pathShim := args[2], args[3]
	env := os.Environ()
	realBash, realSh := filepath.Join(shim.RealShellDir, "bash"), filepath.Join(shim.RealShellDir, "sh")
	b := turns(n, ws, realBash, "true", way{"/bin/bash", env}, way{pathShim, env})
	s := turns(n, ws, realSh, "true", way{"/bin/sh", env})
	fmt.Println(int64(b[0].direct), int64(b[0].added), int64(b[1].added), int64(s[0].direct), int64(s[0].added))
}

const (
	targetShimAbsolute = "shim at /bin/bash added / through PATH, sandboxed"
	targetShimAbsBash  = "shim at /bin/bash added / bash -c true, sandboxed"
)

// absolutePathPart measures the shim where an agent meets it by absolute
// path (issue 52): in the agent's sandbox, /bin/bash and /bin/sh are the
// shim, and what it adds there must be what it adds through PATH.
func absolutePathPart(res *results, n int, bin, ws string, host *run.Host, env []string) error {
	r := &sandbox.Runner{Limits: sandbox.DefaultLimits}
	if err := r.Check(); err != nil {
		res.say("the shim by absolute path: not measured: %v", err)
		res.notMeasured(err.Error(), targetShimAbsolute, targetShimAbsBash)
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	pathShim := filepath.Join(host.ShimDir, "bash")
	exe, err := filepath.EvalSymlinks(pathShim)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, helperAbsPairs, strconv.Itoa(n), ws, pathShim)
	cmd.Env = append(env, "TMPDIR=/tmp")
	sb, err := r.Command(cmd, sandbox.Spec{Writable: []string{ws}, Dir: ws, Home: os.Getenv("HOME"),
		ReadOnly: append([]string{filepath.Dir(host.Socket), bin, self}, sandbox.Tools(env, nil)...),
		Shells:   sandbox.Shells{Shim: exe, Real: shim.RealShellDir}})
	if err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	sb.Stdout = pw
	if err := sb.Start(); err != nil {
		pw.Close()
		pr.Close()
		return err
	}
	pw.Close()
	var v [5]int64
	_, serr := fmt.Fscan(pr, &v[0], &v[1], &v[2], &v[3], &v[4])
	pr.Close()
	if err := sb.Wait(); err != nil || serr != nil {
		return fmt.Errorf("the absolute-path bench: %v %v", err, serr)
	}
	bashDirect, absAdded, pathAdded, shDirect, shAdded := v[0], v[1], v[2], v[3], v[4]
	res.say("the shim by absolute path, sandboxed: /bin/bash -c true added %.2f ms (%.2f× bash, %.2f ms); through PATH %.2f ms; /bin/sh -c true added %.2f ms (%.2f× dash, %.2f ms)",
		float64(absAdded)/1e6, float64(absAdded)/float64(bashDirect), float64(bashDirect)/1e6, float64(pathAdded)/1e6,
		float64(shAdded)/1e6, float64(shAdded)/float64(shDirect), float64(shDirect)/1e6)
	res.target(figure{Target: targetShimAbsolute, Value: float64(absAdded) / float64(pathAdded), Unit: "×", Floor: 1,
		FloorIs: "the shim through PATH", Budget: 1.1, Runs: n})
	res.target(figure{Target: targetShimAbsBash, Value: float64(absAdded) / float64(bashDirect), Unit: "×", Budget: 0.5, Runs: n, Info: true})
	return nil
}
