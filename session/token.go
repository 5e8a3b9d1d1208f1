package session

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/swetouch/swetouch/session/wire"
)

// WithToken has the hub refuse every connection whose first line is not
// the hello carrying token (wire.Hello): a connection the agent's own
// process opened and then handed to a child, before exec'ing the shim so
// that the peer check passes, never carries it, since only the session's
// copy of the shim does and the agent cannot read that copy
// (TokenedCopy). In-process clients (a pipe) are not asked.
func WithToken(token string) Option {
	return func(h *Hub) { h.token = token }
}

// errNoToken is what a client that does not open with the session's
// token is told.
var errNoToken = errors.New("refused: a client of this session opens with its token, which only the session's shim carries")

// checkToken reads the connection's hello, at most its length and not a
// byte more (an admitted client cannot make the hub buffer anything
// before it has shown the token), and says whether it carries the token.
func (h *Hub) checkToken(c io.Reader) error {
	if h.token == "" {
		return nil
	}
	if _, ok := c.(peered); !ok {
		return nil
	}
	var line [wire.HelloLen]byte
	for n := 0; n < len(line); {
		k, err := c.Read(line[n:])
		if err != nil {
			return errNoToken
		}
		n += k
		// a client that opens with anything else is told at once, not
		// left waiting for the rest of a hello it will never send
		if !wire.HelloSoFar(line[:n]) {
			return errNoToken
		}
	}
	if subtle.ConstantTimeCompare([]byte(wire.TokenOf(line[:])), []byte(h.token)) != 1 {
		return errNoToken
	}
	return nil
}

// NewToken is a fresh session token.
func NewToken() (string, error) {
	var b [wire.TokenLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// TokenedCopy writes dst, a copy of the executable src with token and
// its hub's socket in every token slot (the C fast path's and the Go path's), execute-only
// (0111): a process can run it and none can read it but root with its
// capabilities, which no sandbox has; running it makes a process
// non-dumpable, so its memory cannot be read either. src without a slot
// is an error: its copy could not open a connection the hub accepts.
func TokenedCopy(src, dst, token, socket string) error {
	if len(token) != wire.TokenLen {
		return fmt.Errorf("session: a token is %d characters, not %d", wire.TokenLen, len(token))
	}
	if len(socket) >= wire.SocketLen {
		return fmt.Errorf("session: the socket path %s is too long for a Unix socket", socket)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o100)
	if err != nil {
		return err
	}
	fill := make([]byte, wire.TokenLen+wire.SocketLen)
	copy(fill, token)
	copy(fill[wire.TokenLen:], socket)
	offsets, err := slotOffsets(in)
	if err == nil {
		// the copy made in the kernel (copy_file_range), then the slots
		_, err = io.Copy(f, in)
	}
	for _, o := range offsets {
		if err == nil {
			_, err = f.WriteAt(fill, o+int64(len(wire.TokenMarker)))
		}
	}
	if err == nil {
		err = f.Chmod(0o111)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		if errors.Is(err, errNoSlot) {
			return fmt.Errorf("session: %s has no token slot: it is not swetouch's shim, or was built without it", src)
		}
		return err
	}
	return nil
}

var errNoSlot = errors.New("no token slot")

// slotOffsets are where in's token slots start, read a megabyte at a time
// (swetouch is tens of megabytes, which a copy read whole added to its
// resident memory), one straddling two chunks too.
func slotOffsets(in io.ReaderAt) ([]int64, error) {
	slot := []byte(wire.TokenSlot())
	buf := make([]byte, 1<<20)
	var out []int64
	for off := int64(0); ; {
		n, err := in.ReadAt(buf, off)
		// the marker alone is short enough for the vectorised search
		// (the whole slot made it a byte-by-byte one, 3x slower)
		marker := slot[:len(wire.TokenMarker)]
		for i := 0; ; {
			j := bytes.Index(buf[i:n], marker)
			if j < 0 {
				break
			}
			at := i + j
			if bytes.HasPrefix(buf[at:n], slot) {
				out = append(out, off+int64(at))
			}
			// a slot cut off at the chunk's end is found whole in the next
			i = at + len(marker)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// the next chunk starts where a slot cut off at this one's end would
		off += int64(n - (len(slot) - 1))
	}
	if len(out) == 0 {
		return nil, errNoSlot
	}
	return out, nil
}
