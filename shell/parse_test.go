package shell

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// treeText writes a parse tree without its positions, which the cuts
// shift: every other field, recursively, in declaration order.
func treeText(v reflect.Value, b *strings.Builder) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		treeText(v.Elem(), b)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[syntax.Pos]() {
			return
		}
		b.WriteString(v.Type().Name() + "{")
		for i := range v.NumField() {
			treeText(v.Field(i), b)
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	case reflect.Slice:
		b.WriteByte('[')
		for i := range v.Len() {
			treeText(v.Index(i), b)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%q", fmt.Sprint(v.Interface()))
	}
}

// parseBoth parses the command whole and through the cuts, and says how
// they differ, if they do.
func parseBoth(command string) (cut bool, diff string) {
	whole, werr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	got, gerr := NewSession().parse(command)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		return false, fmt.Sprintf("error %v, whole %v", gerr, werr)
	}
	if werr != nil {
		return false, ""
	}
	var a, b strings.Builder
	treeText(reflect.ValueOf(whole), &a)
	treeText(reflect.ValueOf(got), &b)
	if a.String() != b.String() {
		return false, fmt.Sprintf("tree\n%s\nwhole\n%s", b.String(), a.String())
	}
	return len(heredocCuts(command)) > 0, ""
}

// TestParseCutsHeredocs: quoted here-document bodies are cut out of what
// the parser reads, and the tree is the whole parse's, body for body;
// texts the cut cannot carry exactly are parsed whole.
func TestParseCutsHeredocs(t *testing.T) {
	for _, c := range []struct {
		name, command string
		cut           bool
	}{
		{"file written whole", "cat <<'EOF' > a.py\nimport os\nprint(os.sep)\nEOF", true},
		{"then a command", "cat <<'EOF' > a.py\nx = 1\nEOF\npython a.py && echo ok", true},
		{"double quotes", "cat > a.py <<\"PY\"\nx = 'y'\nPY\n", true},
		{"python reads stdin", "cd /testbed && python <<'EOF'\nfrom a import b\nb('<<')\nEOF", true},
		{"two in turn", "cat <<'A' > a\n1\nA\ncat <<'B' > b\n2\nB\n", true},
		{"empty body", "cat <<'EOF' > a\nEOF\necho", true},
		{"in a substitution", "x=$(cat <<'EOF'\nhello $y\nEOF\n)\necho \"$x\"", true},
		{"body looks like the delimiter", "cat <<'EOF'\n EOF\nEOF \nEOFX\nEOF\n", true},
		{"escaped newline in the body", "cat <<'EOF'\na \\\nEOF\nEOF\n", true},
		{"delimiter at the end, no newline", "cat <<'EOF'\nbody\nEOF", true},
		{"unicode body", "cat <<'EOF'\nπ ≈ 3.14\nEOF\n", true},
		{"unquoted", "cat <<EOF\n$HOME\nEOF\n", false},
		{"tabs stripped", "cat <<-'EOF'\n\tx\n\tEOF\n", false},
		{"two on one line", "cat <<'A' <<'B'\n1\nA\n2\nB\n", false},
		{"here-string", "cat <<< 'x'; cat <<'E'\ny\nE\n", true},
		{"no end", "cat <<'EOF'\nbody\n", false},
		{"backquotes", "x=`cat <<'E'\ny\nE\n`", false},
		{"carriage returns", "cat <<'E'\r\ny\r\nE\r\n", false},
		{"invalid utf-8", "cat <<'E'\n\xff\nE\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cut, diff := parseBoth(c.command)
			if diff != "" {
				t.Fatal(diff)
			}
			if cut != c.cut {
				t.Errorf("cut %v, want %v", cut, c.cut)
			}
		})
	}
}

// TestParseStandInMisread: where the parser reads a line the scan took
// for a body's start as something else (a newline inside quotes, a
// continued line, a comment), the cut is not kept, and the tree is the
// whole parse's.
func TestParseStandInMisread(t *testing.T) {
	for _, command := range []string{
		"cat <<'A'; echo \"\nA\n\"\n.\nA\n",
		"cat <<'A'; echo \"a\nX\nA\n\"\nA\n",
		"cat <<'A' \\\n> f\nbody\nA\n",
		"# cat <<'A'\nbody\nA\n",
		"echo '<<'A''\nA\n",
		"cat <<EOF\nfoo <<'X'\nbar\nX\nEOF\n",
	} {
		if _, diff := parseBoth(command); diff != "" {
			t.Errorf("%q: %s", command, diff)
		}
	}
}

// FuzzParse: the cut parse and the whole parse give one tree, or one
// error, for any text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"cat <<'EOF' > a.py\nimport os\nEOF\npython a.py",
		"cat <<'A'; echo \"\nA\n\"\n.\nA\n",
		"x=$(cat <<'EOF'\nhello $y\nEOF\n)\necho \"$x\"",
		"cat <<'A' > a\n1\nA\ncat <<'B' > b\n2\nB\n",
		"cat <<'EOF'\na \\\nEOF\nEOF\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		if _, diff := parseBoth(command); diff != "" {
			t.Fatalf("%q: %s", command, diff)
		}
	})
}

// FuzzFindAllAt: the anchored patterns tried where their literals start
// find what the unanchored ones find over the whole text.
func FuzzFindAllAt(f *testing.F) {
	for _, s := range []string{
		"import os\nos.remove('a.txt')\nshutil.move(src, 'b')\nxos.remove('c')",
		"for i in range(3, 9):\n    print(lines[i])\nrange( 1 ,2 )range(4,5)",
		"os.remove(os.remove(x))",
	} {
		f.Add(s)
	}
	osEdit := regexp.MustCompile(`\b` + strings.TrimPrefix(pyOSEdit().String(), "^"))
	rangeRe := regexp.MustCompile(`\b` + strings.TrimPrefix(pyRange().String(), "^"))
	f.Fuzz(func(t *testing.T, src string) {
		for _, c := range []struct {
			want *regexp.Regexp
			got  [][]string
		}{
			{osEdit, findAllAt(true, src, pyOSEdit(), "os.", "shutil.")},
			{rangeRe, findAllAt(true, src, pyRange(), "range(")},
		} {
			if want := c.want.FindAllStringSubmatch(src, -1); !reflect.DeepEqual(c.got, want) && (len(want) > 0 || len(c.got) > 0) {
				t.Fatalf("%s over %q:\n got %q\nwant %q", c.want, src, c.got, want)
			}
		}
	})
}

// quickShapes are commands in the shape quickParse reads, and some just
// outside it.
var quickShapes = []string{
	"ls -la", "python reproduce.py", "cd /testbed && python reproduce.py",
	"cd /testbed && git diff | head -n 50", "grep -rn 'def foo' src/ | head -20",
	`sed -n '10,20p' a.py`, `python -c 'import sys; print(sys.version)'`, `echo "a b" 'c' d"e"f`,
	"a || b && c | d | e; f", "pytest -x tests/ 2>&1 | tail -5", "cat a.py > b.py; wc -l < b.py",
	"ls >> log 2>/dev/null", "echo hi >&2", `grep -n "x = 1" a.py`, `echo ""`, "a=b python x.py",
	"if true", "time ls", "echo a2>f", "echo a 2>f", "x &", "a |& b", "a;; b", "echo $HOME",
	"echo 'it''s'", "python -c 'print(1)\nprint(2)'", "ls *.py", "cat <<< x", "diff <(a) b",
	"! ls", "echo \"π\"", "a &&", "| a", "echo > ", "2>&1", "echo 'a\\\nb'", "a ; ; b",
}

// TestQuickParse: the commands quickParse reads get the parser's tree,
// and the shapes it leaves are left.
func TestQuickParse(t *testing.T) {
	read := 0
	for _, c := range quickShapes {
		f, ok := quickParse(c)
		whole, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c), "")
		if !ok {
			continue
		}
		read++
		if err != nil {
			t.Errorf("%q: quickParse read what the parser refuses: %v", c, err)
			continue
		}
		var a, b strings.Builder
		treeText(reflect.ValueOf(whole), &a)
		treeText(reflect.ValueOf(f), &b)
		if a.String() != b.String() {
			t.Errorf("%q:\nquick %s\nwhole %s", c, b.String(), a.String())
		}
	}
	if read < 15 {
		t.Errorf("quickParse read %d of the %d shapes; it should read the plain ones", read, len(quickShapes))
	}
}

// TestQuickParseNodes: trees read into shared nodes stay whole while
// more are read after them (a nested command is read while its outer one
// is walked), and nodes handed out again after a reset carry nothing of
// the tree they held before.
func TestQuickParseNodes(t *testing.T) {
	text := func(f *syntax.File) string {
		var b strings.Builder
		treeText(reflect.ValueOf(f), &b)
		return b.String()
	}
	var want []string
	for _, c := range quickShapes {
		if f, ok := quickParse(c); ok {
			want = append(want, text(f))
		}
	}
	n := &nodes{}
	for round := range 3 {
		var trees []*syntax.File
		for _, c := range quickShapes {
			if f, ok := quickParseIn(n, c); ok {
				trees = append(trees, f)
			}
		}
		for i, f := range trees {
			if got := text(f); got != want[i] {
				t.Fatalf("round %d, tree %d after the others were read:\n got %s\nwant %s", round, i, got, want[i])
			}
		}
		n.reset()
	}
	// reversed, so each node goes to a tree of another shape than before
	for i := len(quickShapes) - 1; i >= 0; i-- {
		n.reset()
		f, ok := quickParseIn(n, quickShapes[i])
		if ok {
			if g, _ := quickParse(quickShapes[i]); text(f) != text(g) {
				t.Fatalf("%q read into used nodes:\n got %s\nwant %s", quickShapes[i], text(f), text(g))
			}
		}
	}
}

// FuzzQuickParse: what quickParse reads, it reads as the parser does.
func FuzzQuickParse(f *testing.F) {
	for _, c := range quickShapes {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		q, ok := quickParse(c)
		if !ok {
			return
		}
		whole, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c), "")
		if err != nil {
			t.Fatalf("%q: quickParse read what the parser refuses: %v", c, err)
		}
		var a, b strings.Builder
		treeText(reflect.ValueOf(whole), &a)
		treeText(reflect.ValueOf(q), &b)
		if a.String() != b.String() {
			t.Fatalf("%q:\nquick %s\nwhole %s", c, b.String(), a.String())
		}
	})
}
