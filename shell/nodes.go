package shell

import "mvdan.cc/sh/v3/syntax"

// nodes holds the trees quickParse builds, in chunks that never move. A
// session hands them out again from the start at each top-level command:
// no tree outlives the walk of the command it was read from (a Result
// holds strings, never nodes), so the nodes of the last command are free
// by the time the next one is read. A command nested in one being walked
// (bash -c, eval, a script) is read while the outer tree is still in use,
// and takes the nodes after the outer tree's, never its.
//
// Why: allocating the nodes was a third of the classifier's allocations
// and, with the collector's work behind them, most of what the quick
// parse cost.
type nodes struct {
	files  chunks[fileNode]
	lits   chunks[syntax.Lit]
	words  chunks[syntax.Word]
	parts  chunks[syntax.WordPart]
	calls  chunks[simpleCmd]
	joins  chunks[joinedCmd]
	redirs chunks[syntax.Redirect]
	sgls   chunks[syntax.SglQuoted]
	dbls   chunks[syntax.DblQuoted]
}

// fileNode is a command line's tree and room for its first statements.
type fileNode struct {
	file  syntax.File
	stmts [2]*syntax.Stmt
}

// simpleCmd is one simple command's statement, call and first arguments:
// what quickParse's command needs, in one place.
type simpleCmd struct {
	stmt syntax.Stmt
	call syntax.CallExpr
	args [4]*syntax.Word
}

// joinedCmd is a statement of two joined by an operator (&&, || or |).
type joinedCmd struct {
	stmt syntax.Stmt
	bin  syntax.BinaryCmd
}

// reset makes every node free for the next command.
func (n *nodes) reset() {
	n.files.reset()
	n.lits.reset()
	n.words.reset()
	n.parts.reset()
	n.calls.reset()
	n.joins.reset()
	n.redirs.reset()
	n.sgls.reset()
	n.dbls.reset()
}

// chunkLen is how many nodes of a kind one chunk holds; maxChunks is how
// many chunks of a kind a session keeps from one command to the next (a
// huge command's nodes are let go, not held for the session's life).
const chunkLen, maxChunks = 32, 64

// chunks hands out nodes of one kind, zeroed, from fixed-size chunks.
type chunks[T any] struct {
	all []*[chunkLen]T
	n   int // nodes handed out since the last reset
}

// one is a new zeroed node.
func (c *chunks[T]) one() *T { return &c.slot()[0] }

// slot is a one-element slice of a new zeroed node, with no room to grow
// (an append copies it out, as it would a slice of its own).
func (c *chunks[T]) slot() []T {
	k, i := c.n/chunkLen, c.n%chunkLen
	if k == len(c.all) {
		c.all = append(c.all, new([chunkLen]T))
	}
	c.n++
	s := c.all[k][i : i+1 : i+1]
	var zero T
	s[0] = zero
	return s
}

func (c *chunks[T]) reset() {
	if len(c.all) > maxChunks {
		c.all = nil
	}
	c.n = 0
}
