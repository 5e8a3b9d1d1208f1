package shell

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// vimPrint is an Ex command that only shows lines: [range]p, print, nu,
// number, #, l, list (an optional range: %, N, N,M, $).
var vimPrint = regexp.MustCompile(`^\s*:*\s*(%|\d+|\$)?\s*(?:,\s*(\d+|\$))?\s*(p|pr|print|nu|number|#|l|list|z)\s*$`)

// vimQuit is an Ex command that leaves without writing.
var vimQuit = regexp.MustCompile(`^\s*:*\s*(q|q!|qa|qa!|quit|quit!|qall|qall!|cq|cq!)\s*$`)

// vim handles vi, vim, nvim and ex: run with only Ex commands that print
// and quit (`vim -es -c '%p' -c 'q!' f`, `ex -sc '10,20p|q' f`), or
// read-only (-R, view), it reads the files (the printed lines when one
// range names them); anything else may write them: an edit.
func (w *walker) vim(c *call) {
	var cmds, files []string
	readonly := c.name == "view"
	interactive := true
	exMode := c.name == "ex" // -s there is silent mode, not a script of keys
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-c" || a == "--cmd":
			if i+1 < len(c.args) {
				cmds = append(cmds, splitBar(c.args[i+1])...)
				i++
			}
			interactive = false
		case strings.HasPrefix(a, "+") && len(a) > 1:
			cmds = append(cmds, splitBar(a[1:])...)
			interactive = false
		case a == "-R" || a == "-M":
			readonly = true
		case a == "-e" || a == "-E":
			exMode = true
		case a == "-S" || a == "-s" && !exMode || a == "-u" || a == "-i" || a == "-T" || a == "-w" || a == "-W":
			// a script of keys or commands, or a file of its own: its
			// effect is unknown; -s alone (ex's silent mode) takes none
			if i+1 < len(c.args) {
				i++
			}
			cmds = append(cmds, "?")
		case a == "--":
			files = append(files, c.args[i+1:]...)
			i = len(c.args)
		case strings.HasPrefix(a, "-"):
			if !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "eE") {
				exMode = true
			}
			if strings.ContainsAny(strings.TrimLeft(a, "-"), "c") && !strings.HasPrefix(a, "--") && i+1 < len(c.args) {
				// -sc 'CMD', -esc 'CMD': the last letter takes the command
				if strings.HasSuffix(a, "c") {
					cmds = append(cmds, splitBar(c.args[i+1])...)
					i++
					interactive = false
				}
			}
		default:
			files = append(files, a)
		}
	}
	kind := event.Edit
	var ranges [][2]int
	if readonly || !interactive && printsOnly(cmds, &ranges) {
		kind = event.Read
	}
	for _, f := range files {
		if kind == event.Read && len(files) == 1 && len(ranges) > 0 {
			if rp, ok := w.resolve(f); ok {
				for _, r := range ranges {
					w.add(event.Read, event.LineScope(rp, r[0], r[1]))
				}
				continue
			}
		}
		if _, ok := w.addPath(kind, f); !ok && strings.ContainsRune(f, unknownRune) {
			w.add(kind, event.Scope{})
		}
	}
}

// splitBar splits an Ex command line at its bars (`10,20p|q`).
func splitBar(s string) []string { return strings.Split(s, "|") }

// printsOnly reports Ex commands that only print and quit; the line
// ranges they print are added to ranges, none for a whole-file print.
func printsOnly(cmds []string, ranges *[][2]int) bool {
	whole := false
	printed := false
	for _, c := range cmds {
		if vimQuit.MatchString(c) || strings.TrimSpace(c) == "" {
			continue
		}
		m := vimPrint.FindStringSubmatch(c)
		if m == nil {
			return false
		}
		printed = true
		a, errA := strconv.Atoi(m[1])
		b, errB := strconv.Atoi(m[2])
		switch {
		case m[1] == "" || m[1] == "%" || m[1] == "$" || m[2] == "$" || m[3] == "z":
			whole = true
		case m[2] == "" && errA == nil:
			*ranges = append(*ranges, [2]int{a, a})
		case errA == nil && errB == nil:
			*ranges = append(*ranges, [2]int{min(a, b), max(a, b)})
		default:
			whole = true
		}
	}
	if whole {
		*ranges = nil
	}
	return printed
}
