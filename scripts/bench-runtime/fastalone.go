package main

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
)

// fastAlonePart measures the shim's fast path built as a static C
// program with no Go linked in, in the same turns as the shim. Both run
// the same fast.c and wire.c against a hub that admits them, so what
// differs is what the kernel pays for the shim's larger binary. It says
// whether a C-only build, which `go build` cannot make, would be worth
// a build step of its own (docs/runtime.md, the twentieth stop).
func fastAlonePart(res *results, n int, tmp, ws, bash, shim string, env []string) error {
	alone, err := fastAlone(tmp)
	if err != nil {
		return err
	}
	// a host of its own, whose hub admits this build as its shim
	host, stop, err := recordingHost(ws, alone)
	if err != nil {
		return err
	}
	defer stop()
	ps := turns(n, ws, bash, "true", way{shim, env}, way{filepath.Join(host.ShimDir, "bash"), host.Env(os.Environ())})
	// a begin the hub refused still runs its command, with no session and
	// no end, and quicker for it: the figure stands only if every run was
	// the session's
	if steps := host.Hub.Status().Steps; steps != n {
		return fmt.Errorf("its hub recorded %d of the %d commands run through it", steps, n)
	}
	shimMB, aloneMB := loadedMB(shim), loadedMB(alone)
	res.say("  the fast path as a C program alone (%.2f MB loaded, the shim %.2f MB), in the same turns: added %.2f ms, the shim %.2f ms (%+.0f µs; the shim adds %.2f× that)",
		aloneMB, shimMB, ms(ps[1].added), ms(ps[0].added), float64(ps[0].added-ps[1].added)/1e3, float64(ps[0].added)/float64(ps[1].added))
	return nil
}

// fastAlone builds cmd/swetouch-shim's C with a main that only fails:
// the fast path exits before main on every command the part runs.
func fastAlone(tmp string) (string, error) {
	dir := filepath.Join(tmp, "fast-alone")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	stub := filepath.Join(dir, "main.c")
	prog := "#include <stdio.h>\nint main(void) { fputs(\"bench: the fast path declined\\n\", stderr); return 125; }\n"
	if err := os.WriteFile(stub, []byte(prog), 0o644); err != nil {
		return "", err
	}
	src := filepath.Join("cmd", "swetouch-shim")
	bin := filepath.Join(dir, "swetouch-shim-c")
	if err := ccStatic(bin, filepath.Join(src, "fast.c"), filepath.Join(src, "wire.c"), stub); err != nil {
		return "", err
	}
	return bin, nil
}

// loadedMB is the size of what exec maps of the program at path: its
// loadable segments in memory, 0 when it cannot be read.
func loadedMB(path string) float64 {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	f, err := elf.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var n uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			n += p.Memsz
		}
	}
	return float64(n) / (1 << 20)
}
