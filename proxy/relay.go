package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Hook sees each line (without its newline) travelling one way and
// returns what to send instead: the line itself to relay it unchanged,
// nil to send nothing (the relay answered or holds it).
type Hook func(line []byte) []byte

// Pipe copies newline-delimited messages from src to dst through hook
// until src ends. Lines of any length pass; a line that is not JSON is
// relayed as it came (a relay survives garbage).
func Pipe(dst io.Writer, src io.Reader, hook Hook) error { return PipeThen(dst, src, hook, nil) }

// PipeThen is Pipe calling then (when not nil) after each line it sends:
// for work that must not hold the line back, done on the same goroutine
// once it is on its way (a goroutine of its own costs a thread's wake-up
// per line, more than the work).
func PipeThen(dst io.Writer, src io.Reader, hook Hook, then func()) error {
	r := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			body := bytes.TrimRight(line, "\r\n")
			out := line
			if hook != nil {
				got := hook(body)
				switch {
				case got == nil:
					out = nil // the hook took the message
				case !bytes.Equal(got, body):
					out = append(got, '\n')
				}
			}
			if out != nil {
				if _, werr := dst.Write(out); werr != nil {
					return werr
				}
			}
			if then != nil {
				then()
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// Envelope is the part of a JSON-RPC message a relay routes by: the raw
// id (a string or a number, kept as it came), the method, and whether it
// carries a result or an error.
type Envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params json.RawMessage `json:"params"`
}

// Peek reads a message's envelope; ok is false for a line that is not a
// JSON object (a batch, garbage). The raw fields are slices of line, not
// copies: a caller that reuses line's memory copies what it keeps first
// (the relays' lines are each read into memory of their own).
func Peek(line []byte) (Envelope, bool) {
	e, _, ok := PeekReading(line, nil)
	return e, ok
}

// IsRequest, IsResponse and IsNotification classify a message.
func (e Envelope) IsRequest() bool      { return e.Method != "" && len(e.ID) > 0 && string(e.ID) != "null" }
func (e Envelope) IsNotification() bool { return e.Method != "" && !e.IsRequest() }
func (e Envelope) IsResponse() bool     { return e.Method == "" && len(e.ID) > 0 }

// Pollable returns stdin in non-blocking mode, read through Go's poller.
// A goroutine parked in a blocking read of an inherited pipe keeps the
// runtime from noticing the server's answer for up to the scheduler's 10 ms
// housekeeping tick: that was most of a relayed call's latency.
func Pollable(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return r
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return r
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// StartChild starts cmd, a peer, with its stdin and stdout piped to the
// relay (its stderr, env and dir are the caller's to set); the int is the
// exit status to report when it cannot start.
func StartChild(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, int, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, 1, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, 1, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, 127, err
	}
	return in, out, 0, nil
}

// ExitStatus is a waited-for child's status as a shell reports it: its
// exit code, or 128 plus the signal that killed it.
func ExitStatus(cmd *exec.Cmd, waitErr error) (int, error) {
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	if waitErr != nil && cmd.ProcessState == nil {
		return 1, waitErr
	}
	return cmd.ProcessState.ExitCode(), nil
}

// appendPlainIDKey is AppendIDKey for the ids clients send (1,
// "abc-7"), read without encoding/json and written with no allocation:
// an integer written plainly, a string with no escapes and nothing but
// printable ASCII. ok is false for any other id.
func appendPlainIDKey(dst, t []byte) (out []byte, ok bool) {
	switch c := t[0]; {
	case c == '"':
		if len(t) < 2 || t[len(t)-1] != '"' {
			return dst, false
		}
		for _, c := range t[1 : len(t)-1] {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return dst, false
			}
		}
		return append(append(dst, "s:"...), t[1:len(t)-1]...), true
	case c == '-' || c >= '0' && c <= '9':
		d := t
		if c == '-' {
			d = t[1:]
		}
		if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
			return dst, false // past 18 digits int64 may not hold it
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return dst, false
			}
		}
		if string(t) == "-0" {
			t = d // the integer 0, as strconv writes it
		}
		return append(append(dst, "n:"...), t...), true // as strconv writes it
	}
	return dst, false
}

// IDKey is a JSON-RPC id as a value, for matching a response to its
// request: a peer may write the id it echoes differently (spaces, 1.0
// for 1, an escaped string), and the bytes would then miss.
func IDKey(id json.RawMessage) string { return string(AppendIDKey(nil, id)) }

// AppendIDKey appends IDKey(id) to dst: with no allocation for the ids
// clients send, so that a relay matching every response to its request
// can look its key up in a buffer of its own.
func AppendIDKey(dst []byte, id json.RawMessage) []byte {
	t := bytes.TrimSpace(id)
	if len(t) == 0 {
		return dst
	}
	if out, ok := appendPlainIDKey(dst, t); ok {
		return out
	}
	return append(dst, idKeyGeneral(t)...)
}

// idKeyGeneral is IDKey by encoding/json's reading of a trimmed id.
func idKeyGeneral(t []byte) string {
	switch t[0] {
	case '"':
		var s string
		if json.Unmarshal(t, &s) == nil {
			return "s:" + s
		}
	case 'n':
		return "null"
	default:
		var f json.Number
		if json.Unmarshal(t, &f) == nil {
			// integers exactly (float64 would merge 2^53+1 with 2^53)
			if v, err := f.Int64(); err == nil {
				return "n:" + strconv.FormatInt(v, 10)
			}
			if v, err := f.Float64(); err == nil && v == float64(int64(v)) && v > -1<<53 && v < 1<<53 {
				return "n:" + strconv.FormatInt(int64(v), 10)
			}
			if v, err := f.Float64(); err == nil {
				return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
			}
			return "n:" + f.String()
		}
	}
	return "raw:" + string(t)
}
