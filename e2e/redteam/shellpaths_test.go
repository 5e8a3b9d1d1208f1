package redteam

// Every shell the agent starts passes the shim (issue 52): an agent that
// starts /bin/sh or /bin/bash by absolute path, runs a #!/bin/sh script,
// or is a shell script itself is seen as one that finds bash on PATH.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/trajectory"
)

// shellPathCommands are what each agent below runs, one action each: a
// command that touches nothing, a read of the Counter-Edit's region (its
// trigger), another, and an edit of the file.
var shellPathCommands = []string{"echo start", "sed -n 4,6p pricing.py", "ls", "sed -i s/percent/pct/g pricing.py"}

// pyAgent is a Python agent that runs each command as call does
// ({cmd}: the command).
func pyAgent(call string) string {
	var b strings.Builder
	b.WriteString("import subprocess, os\n")
	for _, c := range shellPathCommands {
		fmt.Fprintf(&b, "subprocess.run(%s)\n", strings.ReplaceAll(call, "{cmd}", fmt.Sprintf("%q", c)))
	}
	return b.String()
}

// shellScript is the commands as a script for shebang.
func shellScript(shebang string) string {
	return shebang + "\n" + strings.Join(shellPathCommands, "\n") + "\n"
}

// actions are what a trajectory holds of pricing.py and the Counter-Edit,
// step by step: each event's step, source, kind and line scopes, and each
// intervention's outcome. Files the agent wrote to run (a script) are
// left out.
func actions(t *testing.T, traj string) []string {
	t.Helper()
	tr, err := trajectory.ReadFile(traj)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range tr.Events {
		step := -1
		if ev.Step != nil {
			step = *ev.Step
		}
		switch {
		case ev.Kind == event.Intervention && ev.Attempt != nil:
			out = append(out, fmt.Sprintf("%d intervention %s %s", step, ev.Attempt.Trigger, ev.Attempt.Outcome))
		case ev.Kind == event.Verify || ev.Kind == event.Session:
		default:
			var scopes []string
			for _, s := range ev.Scopes {
				if s.Path == "pricing.py" {
					scopes = append(scopes, fmt.Sprintf("%s:%d-%d/%s", s.Path, s.Start, s.End, s.Precision))
				}
			}
			if len(scopes) > 0 || ev.Source == "shell" {
				out = append(out, fmt.Sprintf("%d %s %s %s %s %q", step, ev.Source, ev.Actor, ev.Kind, strings.Join(scopes, ","), ev.Command))
			}
		}
	}
	return out
}

// TestShellPathsSeen: an agent that reads and edits only through /bin/sh
// -c (Python's shell=True, mini-swe-agent's way), only through /bin/bash
// by absolute path, only through a #!/bin/sh script it writes, and an
// agent that is a bash script: each read and edit is in the trajectory
// with its line scope at its step, and the read-triggered Counter-Edit
// fires at the same step, and reaches the agent, as for an agent that
// runs bash from PATH.
func TestShellPathsSeen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := shellScript("#!/bin/sh")
	routes := []struct {
		name  string
		agent []string
	}{
		{"bash from PATH", []string{"python3", write("path.py", pyAgent(`["bash", "-c", {cmd}]`))}},
		{"/bin/sh -c (shell=True)", []string{"python3", write("sh.py", pyAgent(`{cmd}, shell=True`))}},
		{"/bin/bash by absolute path", []string{"python3", write("abs.py", pyAgent(`["/bin/bash", "-c", {cmd}]`))}},
		{"a login shell (bash -lc)", []string{"python3", write("login.py", pyAgent(`["/bin/bash", "-lc", {cmd}]`))}},
		{"a #!/bin/sh script", []string{"python3", write("script.py", fmt.Sprintf(
			"import subprocess, os\nopen('/tmp/do.sh', 'w').write(%q)\nos.chmod('/tmp/do.sh', 0o755)\nsubprocess.run(['/tmp/do.sh'])\n", script))}},
		{"a shell-script agent", []string{write("agent.sh", shellScript("#!/bin/bash"))}},
	}
	var want []string
	for i, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			f := newFixture(t)
			_, out := f.run(t, "counter-edit", r.agent...)
			got := actions(t, filepath.Join(f.out, "trajectory.jsonl"))
			if i == 0 {
				want = got
				// the reference itself: the read at step 1 fires the
				// Counter-Edit there; the edit is step 3's
				for _, w := range []string{`1 shell agent read pricing.py:4-6/line "sed -n 4,6p pricing.py"`, "1 intervention read applied",
					`3 shell agent edit pricing.py:`} {
					if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
						t.Fatalf("bash from PATH: no %q in\n%s", w, strings.Join(got, "\n"))
					}
				}
			} else if !slices.Equal(got, want) {
				t.Errorf("the trajectory holds\n%s\nwhere bash from PATH's holds\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// the message reaches the agent after the read's output and
			// before the next command's
			read, msg := strings.Index(out, "def apply_discount"), strings.Index(out, "<user-message>")
			if read < 0 || msg < read {
				t.Errorf("the message is not after the read's output:\n%s", out)
			}
		})
		if want == nil {
			return
		}
	}
}

// TestShellPathsTransparent: the shim's transparency battery run through
// each path an agent starts a shell by (sh -c, /bin/bash -c, env bash
// -c, bash -lc, bash script.sh, a #!/bin/sh script, bash -s < file), against the
// real shells the sandbox keeps: stdout, stderr and the status byte for
// byte alike.
func TestShellPathsTransparent(t *testing.T) {
	f := newFixture(t)
	agent := filepath.Join(t.TempDir(), "battery.py")
	if err := os.WriteFile(agent, []byte(battery), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out := f.run(t, "vanilla", "python3", agent)
	if !strings.Contains(out, "battery: 0 differ of 191") || strings.Contains(out, "DIFFERS") {
		t.Errorf("the shim's paths differ from the real shells:\n%s", out)
	}
	// and they went through the shim: each -c path's command is a step,
	// and so is each script's command (bash script.sh, the #!/bin/sh
	// script, bash -s < file), the real shells' runs none
	tr, err := trajectory.ReadFile(filepath.Join(f.out, "trajectory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	commands, statements := 0, 0
	for _, ev := range tr.Events {
		switch {
		case ev.Source != "shell":
		case ev.Command == `echo 'a\nb'; echo $((3+4))`:
			commands++
		case ev.Command == `echo 'a\nb';`:
			statements++ // a script's: each statement its own step
		}
	}
	if commands != 5 || statements != 3 {
		t.Errorf("the shim saw the case as %d commands and %d scripts' statements, want 5 and 3 (one per path)", commands, statements)
	}
}

// battery runs each case through each path and through the real shell at
// /run/swetouch-shells, and prints what differs.
const battery = `import os, subprocess
real = '/run/swetouch-shells/'
cases = [
    ('text', "echo out; echo err >&2; printf 'no newline'", None),
    ('binary', r"printf '\x00\xff\xfe\x80abc\x00'; printf '\xc3\x28' >&2", None),
    ('10 MB', r"head -c 10000000 /dev/zero | tr '\0' 'a'; echo; head -c 3000000 /dev/zero | base64 >&2", None),
    ('stdin', 'wc -c; tr a-z A-Z', b'hello stdin\n'),
    ('killed by a signal', 'echo before; kill -KILL $$', None),
    ('set -e', 'set -e; false; echo unreachable', None),
    ('cwd and env', 'pwd; echo $HOME', None),
    ('dash or bash', r"echo 'a\nb'; echo $((3+4))", None),
] + [('exit %d' % c, 'exit %d' % c, None) for c in range(0, 256, 17)]
def run(argv, stdin):
    p = subprocess.run(argv, input=stdin if isinstance(stdin, bytes) else None,
                       stdin=stdin if not isinstance(stdin, bytes) and stdin is not None else (None if isinstance(stdin, bytes) else subprocess.DEVNULL),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.stdout, p.stderr, p.returncode
n = bad = 0
for name, text, stdin in cases:
    open('t.sh', 'w').write(text + '\n')
    open('t2.sh', 'w').write('#!/bin/sh\n' + text + '\n')
    os.chmod('t2.sh', 0o755)
    paths = [
        ('sh -c', ['/bin/sh', '-c', text], [real + 'sh', '-c', text], stdin),
        ('/bin/bash -c', ['/bin/bash', '-c', text], [real + 'bash', '-c', text], stdin),
        ('/usr/bin/sh -c', ['/usr/bin/sh', '-c', text], [real + 'sh', '-c', text], stdin),
        ('env bash -c', ['env', 'bash', '-c', text], [real + 'bash', '-c', text], stdin),
        ('bash -lc', ['/bin/bash', '-lc', text], [real + 'bash', '-lc', text], stdin),
        ('bash script.sh', ['bash', 't.sh'], [real + 'bash', 't.sh'], stdin),
        ('#!/bin/sh script', ['./t2.sh'], [real + 'sh', './t2.sh'], stdin),
    ]
    if stdin is None:
        paths.append(('bash -s < file', ['bash', '-s'], [real + 'bash', '-s'], 'file'))
    for route, via, ref, sin in paths:
        if sin == 'file':
            got = run(via, open('t.sh', 'rb'))
            want = run(ref, open('t.sh', 'rb'))
        else:
            got, want = run(via, sin), run(ref, sin)
        n += 1
        if got != want:
            bad += 1
            print('DIFFERS', route, name, repr(got)[:300], repr(want)[:300])
for p in ('t.sh', 't2.sh'):
    os.remove(p)
print('battery: %d differ of %d' % (bad, n))
`
