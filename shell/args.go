package shell

import "strings"

// opts describes a command's options: the short letters and long names that
// take a separate value.
type opts struct {
	short string
	long  []string
}

// parsed is a command line split into options and operands.
type parsed struct {
	flags    []flag // in command-line order; a slice, not a map: commands have few
	operands []string
}

// flag is one option: its name without dashes and its value ("" if none).
type flag struct{ name, value string }

func (p parsed) has(names ...string) bool {
	_, ok := p.get(names...)
	return ok
}

func (p parsed) get(names ...string) (string, bool) {
	for _, n := range names {
		for i := len(p.flags) - 1; i >= 0; i-- { // the last occurrence wins
			if p.flags[i].name == n {
				return p.flags[i].value, true
			}
		}
	}
	return "", false
}

// parse splits args. Short clusters (-abc) are split into letters; a letter
// that takes a value consumes the rest of the cluster or the next argument.
// A bare "--" ends the options; "-" alone is an operand (stdin).
func (o opts) parse(args []string) parsed {
	var p parsed
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(a, "--"):
			name, val, eq := strings.Cut(a[2:], "=")
			if !eq && o.takesLong(name) && i+1 < len(args) {
				i++
				val = args[i]
			}
			p.flags = append(p.flags, flag{name, val})
		case len(a) > 1 && a[0] == '-' && !isNumberish(a):
			for j := 1; j < len(a); j++ {
				l := a[j : j+1]
				if strings.Contains(o.short, l) {
					val := a[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					p.flags = append(p.flags, flag{l, val})
					break
				}
				p.flags = append(p.flags, flag{l, ""})
			}
		default:
			p.operands = append(p.operands, a)
		}
	}
	return p
}

func (o opts) takesLong(name string) bool {
	for _, l := range o.long {
		if l == name {
			return true
		}
	}
	return false
}

// isNumberish reports "-5" style arguments (head -5, tail -20).
func isNumberish(a string) bool { return len(a) > 1 && a[0] == '-' && isDigits(a[1:]) }

// atoi parses a non-negative decimal; ok is false otherwise.
func atoi(s string) (int, bool) {
	if !isDigits(s) || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
