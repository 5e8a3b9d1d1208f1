// awk's part of the classifier: the lines an awk program prints.

package shell

import (
	"strings"

	"github.com/swetouch/swetouch/event"
)

var awkNR = lazyRegexp(`\bNR\s*(==|>=|<=|>|<)\s*(\d+)`)

// awkSelection reads `NR` bounds from an awk program's pattern:
// `NR>=a && NR<=b`, `NR==n`, `NR>a`. Anything else selects an unknown subset.
func awkSelection(prog string) (sel []rng, known bool) {
	pattern := prog
	if k := strings.IndexByte(prog, '{'); k >= 0 {
		pattern = prog[:k]
		if strings.TrimSpace(pattern) == "" {
			return nil, true // every line, transformed
		}
	}
	if strings.Contains(pattern, "||") || strings.Contains(pattern, "/") || strings.Contains(pattern, "$") || strings.Contains(pattern, "!") {
		return nil, false
	}
	ms := awkNR().FindAllStringSubmatch(pattern, -1)
	if len(ms) == 0 {
		return nil, false
	}
	rest := strings.TrimSpace(awkNR().ReplaceAllString(pattern, ""))
	rest = strings.Trim(strings.ReplaceAll(strings.ReplaceAll(rest, "&&", ""), " ", ""), "()")
	if rest != "" {
		return nil, false
	}
	lo, hi := 1, 0
	for _, m := range ms {
		v, _ := atoi(m[2])
		switch m[1] {
		case "==":
			lo, hi = max(lo, v), v
		case ">=":
			lo = max(lo, v)
		case ">":
			lo = max(lo, v+1)
		case "<=":
			if hi == 0 || v < hi {
				hi = v
			}
		case "<":
			if hi == 0 || v-1 < hi {
				hi = v - 1
			}
		}
	}
	if hi != 0 && hi < lo {
		return []rng{}, true
	}
	return []rng{{lo, hi}}, true
}

func (w *walker) awk(c *call) out {
	var prog string
	progSet, inplace := false, false
	var ops []string
	args := c.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "-i" || a == "--include":
			if i+1 < len(args) {
				i++
				if args[i] == "inplace" || args[i] == "inplace.awk" {
					inplace = true
				}
			}
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				i++
				prog, progSet = w.fileText(args[i]), true
			}
		case a == "-v" || a == "-F" || a == "--assign" || a == "--field-separator":
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1 && !progSet:
		default:
			if !progSet {
				prog, progSet = a, true
				continue
			}
			if strings.Contains(a, "=") && !strings.Contains(a, "/") {
				continue // var=value operand
			}
			ops = append(ops, a)
		}
	}
	if inplace {
		for _, o := range ops {
			if _, ok := w.addPath(event.Edit, o); !ok && strings.ContainsRune(o, unknownRune) {
				w.add(event.Edit, event.Scope{})
			}
		}
		return out{}
	}
	sel, known := awkSelection(prog)
	files := w.readOperands(ops)
	target := c.in
	if len(files) > 0 {
		target = w.source(files, nil, false)
	}
	if target == nil {
		return out{}
	}
	switch {
	case !known:
		target.subset, target.exact = true, false
	case sel != nil:
		w.selectLines(target, sel)
	}
	target.exact = target.exact && awkVerbatim(prog)
	return out{stream: target}
}

// awkVerbatim reports programs that print selected lines unchanged.
func awkVerbatim(prog string) bool {
	k := strings.IndexByte(prog, '{')
	if k < 0 {
		return true
	}
	body := strings.Join(strings.Fields(prog[k:]), "")
	return body == "{print}" || body == "{print$0}" || body == "{print;}" || body == "{print$0;}"
}
