package wire

import (
	"os"
	"strings"
)

// A session's token is how the hub knows a connection is its shim's own:
// the peer's credentials name the process that connected, and an agent's
// process can connect, hand the socket to a child, and exec the shim
// before the hub looks. The token lives in the per-session copy of the
// shim (TokenSlot, overwritten in the copy's bytes), which is
// execute-only: the agent can run it but not read it, and a process
// running an executable it cannot read is not dumpable. The shim sends it
// as the first line of every connection it opens itself (Hello), and the
// hub refuses every line of a connection before a valid one. The copy
// carries its hub's socket too, and dials only that: a shim pointed at a
// socket of the agent's (SWETOUCH_SOCKET) would otherwise hand the agent
// the token.
const (
	// TokenMarker opens the slot in the executable's bytes.
	TokenMarker = "swetouch-session-token:"
	// TokenLen is the token's length: 32 random bytes in hex.
	TokenLen = 64
	// SocketLen is room for the hub's socket after it, NUL-padded (a
	// Unix socket's path is shorter).
	SocketLen = 108
	// tokenFill is what the slot holds until a copy's maker overwrites it.
	tokenFill = '.'
)

// tokenSlot is the slot, a string in the executable's read-only data: a
// var, so the compiler reads it at run time rather than fold it.
var tokenSlot = TokenMarker + "................................................................" +
	"................................................................" +
	"............................................"

// Token is the session token this executable carries ("" in an
// executable no one patched: swetouch itself, a shim run outside a
// session's copy).
func Token() string {
	t := tokenSlot[len(TokenMarker):]
	if len(t) != TokenLen+SocketLen || strings.Count(t[:TokenLen], string(tokenFill)) == TokenLen {
		return ""
	}
	return t[:TokenLen]
}

// TokenSocket is the hub's socket the token is for ("" without a token).
func TokenSocket() string {
	if Token() == "" {
		return ""
	}
	p := tokenSlot[len(TokenMarker)+TokenLen:]
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return p
}

// TokenSlot is the bytes of an executable no one patched yet, as
// TokenedCopy looks for them.
func TokenSlot() string {
	return TokenMarker + strings.Repeat(string(tokenFill), TokenLen+SocketLen)
}

// HelloLen is the length of a hello line, which the hub reads whole
// before anything else.
const HelloLen = len(helloHead) + TokenLen + len(helloTail)

const (
	helloHead = `{"op":"hello","token":"`
	helloTail = "\"}\n"
)

// Hello is the first line a client carrying token sends.
func Hello(token string) []byte {
	return []byte(helloHead + token + helloTail)
}

// HelloSoFar reports whether b can be the start of a hello line: the
// head so far, and no line's end before the hello's own.
func HelloSoFar(b []byte) bool {
	for i, c := range b {
		switch {
		case i < len(helloHead) && c != helloHead[i]:
			return false
		case c == '\n' && i != HelloLen-1:
			return false
		}
	}
	return true
}

// TokenOf reads the token out of a hello line ("" when it is none).
func TokenOf(line []byte) string {
	s := string(line)
	if len(s) != HelloLen || !strings.HasPrefix(s, helloHead) || !strings.HasSuffix(s, helloTail) {
		return ""
	}
	return s[len(helloHead) : len(helloHead)+TokenLen]
}

// sayHello sends this executable's token, if it carries one, as the
// connection's first line.
func sayHello(f *os.File) error {
	t := Token()
	if t == "" {
		return nil
	}
	_, err := f.Write(Hello(t))
	return err
}
