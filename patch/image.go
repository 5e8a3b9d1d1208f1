package patch

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// eol is a line's own terminator, kept per line so mixed line endings
// survive untouched.
type eol uint8

const (
	noEOL eol = iota // the last line of a file without a final newline
	lf
	crlf
)

func (e eol) String() string { return [...]string{"", "\n", "\r\n"}[e] }

// image is a file's content as it was read, split into lines once and never
// modified. Hunks are located in it and the result is rendered in one pass:
// a search never sees text an earlier hunk wrote, per-line search keys are
// computed once, and untouched runs of lines are copied out whole.
type image struct {
	src   string
	lines []span
	eol   eol // the dominant terminator, for lines a hunk writes
	keys  []uint64
}

// span locates one line in src. It holds no pointers, so a 10,000-line
// file is one flat slice the garbage collector skips. 32 bits keep it
// small; Apply refuses files of 2 GiB or more.
type span struct {
	off, n int32 // the text, without its terminator
	end    eol
}

func (s span) stop() int { return int(s.off) + int(s.n) + len(s.end.String()) }

func newImage(s string) *image {
	im := &image{src: s, eol: lf, lines: make([]span, 0, countLines(s))}
	crlfs := 0
	for at := 0; at < len(s); {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			im.lines = append(im.lines, span{off: int32(at), n: int32(len(s) - at), end: noEOL})
			break
		}
		l := span{off: int32(at), n: int32(i), end: lf}
		if i > 0 && s[at+i-1] == '\r' {
			l.n, l.end = int32(i-1), crlf
			crlfs++
		}
		im.lines = append(im.lines, l)
		at += i + 1
	}
	if crlfs*2 > len(im.lines) {
		im.eol = crlf
	}
	return im
}

// text is line k's text.
func (im *image) text(k int) string {
	l := im.lines[k]
	return im.src[l.off : l.off+l.n]
}

// matchAt reports whether block sits at line p, exactly or (norm) up to
// whitespace.
func (im *image) matchAt(block []string, p int, norm bool) bool {
	if p < 0 || p+len(block) > len(im.lines) {
		return false
	}
	for k, b := range block {
		l := im.text(p + k)
		if l != b && !(norm && sameFields(l, b)) {
			return false
		}
	}
	return true
}

// find returns every line where block sits, in order, exactly or (norm) up
// to whitespace. It compares per-line keys first (lines equal up to
// whitespace have equal keys), so a scan of a long file is a pass over
// integers; the keys are computed once, by the first scan.
func (im *image) find(block []string, norm bool) []int {
	if len(block) == 0 {
		return nil
	}
	keys := im.lineKeys()
	want := make([]uint64, len(block))
	for k, b := range block {
		want[k] = lineKey(b)
	}
	var ps []int
	for p := 0; p+len(block) <= len(keys); p++ {
		if keys[p] != want[0] || !slices.Equal(keys[p:p+len(block)], want) {
			continue
		}
		if im.matchAt(block, p, norm) {
			ps = append(ps, p)
		}
	}
	return ps
}

func (im *image) lineKeys() []uint64 {
	if im.keys == nil {
		im.keys = make([]uint64, len(im.lines))
		for k := range im.lines {
			im.keys[k] = lineKey(im.text(k))
		}
	}
	return im.keys
}

// lineKey is a cheap filter for line comparisons: the last (up to) 7 bytes
// of a line's last word, packed with their count, which no whitespace
// change can alter. It reads only a line's end; a collision costs one
// comparison. Where a non-ASCII byte is in reach (it might be a unicode
// space) the same rule runs over the line's unicode fields.
func lineKey(s string) uint64 {
	k := len(s)
	for k > 0 && asciiBlank(s[k-1]) {
		k--
	}
	h := uint64(0)
	n := 0
	for ; n < 7 && k > 0 && !asciiBlank(s[k-1]); n, k = n+1, k-1 {
		if s[k-1] >= utf8.RuneSelf {
			return slowKey(s)
		}
		h = h<<8 | uint64(s[k-1])
	}
	return h<<8 | uint64(n)
}

// slowKey is lineKey through unicode fields.
func slowKey(s string) uint64 {
	fs := strings.FieldsFunc(s, unicode.IsSpace)
	if len(fs) == 0 {
		return 0
	}
	w := fs[len(fs)-1]
	h := uint64(0)
	n := 0
	for ; n < 7 && n < len(w); n++ {
		h = h<<8 | uint64(w[len(w)-1-n])
	}
	return h<<8 | uint64(n)
}

func asciiBlank(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// sameFields reports whether a and b are equal up to whitespace: the same
// words, runs of spaces of any length between them. It is
// strings.Fields-then-compare without allocating.
func sameFields(a, b string) bool {
	i, j := 0, 0
	for {
		i, j = skipSpace(a, i), skipSpace(b, j)
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		for i < len(a) && j < len(b) {
			ra, na := runeAt(a, i)
			rb, nb := runeAt(b, j)
			sa, sb := isSpace(ra), isSpace(rb)
			if sa || sb {
				if !sa || !sb {
					return false
				}
				break
			}
			if na != nb || a[i:i+na] != b[j:j+nb] { // bytes: invalid UTF-8 decodes alike
				return false
			}
			i, j = i+na, j+nb
		}
	}
}

func runeAt(s string, i int) (rune, int) {
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	return unicode.IsSpace(r)
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if !isSpace(r) {
			return i
		}
		i += n
	}
	return i
}

// edit replaces image lines [from, to) with out.
type edit struct {
	from, to int
	out      []outLine
}

// outLine is a line of a hunk's result: an image line kept with its own
// text and terminator (keep ≥ 0), or a line the hunk wrote.
type outLine struct {
	keep  int
	text  string
	noEOL bool // marked "\ No newline at end of file"
}

func (e edit) growth() int { return len(e.out) - (e.to - e.from) }

// render writes the image with the edits (sorted, disjoint) applied. A line
// left without a terminator gets the file's own when anything follows it.
func (im *image) render(edits []edit) []byte {
	size := len(im.src)
	for _, e := range edits {
		for _, o := range e.out {
			size += len(o.text) + 2
		}
	}
	b := make([]byte, 0, size)
	open := false // the last line written has no terminator
	keep := func(from, to int) {
		if from >= to {
			return
		}
		if open {
			b = append(b, im.eol.String()...)
		}
		b = append(b, im.src[im.lines[from].off:im.lines[to-1].stop()]...)
		open = im.lines[to-1].end == noEOL
	}
	at := 0
	for _, e := range edits {
		keep(at, e.from)
		for _, o := range e.out {
			if o.keep >= 0 {
				keep(o.keep, o.keep+1)
				continue
			}
			if open {
				b = append(b, im.eol.String()...)
			}
			b = append(b, o.text...)
			open = o.noEOL
			if !open {
				b = append(b, im.eol.String()...)
			}
		}
		at = e.to
	}
	keep(at, len(im.lines))
	return b
}
