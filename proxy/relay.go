package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// Hook sees each line (without its newline) travelling one way and
// returns what to send instead: the line itself to relay it unchanged.
type Hook func(line []byte) []byte

// Pipe copies newline-delimited messages from src to dst through hook
// until src ends. Lines of any length pass; a line that is not JSON is
// relayed as it came (a relay survives garbage).
func Pipe(dst io.Writer, src io.Reader, hook Hook) error {
	r := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			body := bytes.TrimRight(line, "\r\n")
			out := line
			if hook != nil {
				if got := hook(body); !bytes.Equal(got, body) {
					out = append(got, '\n')
				}
			}
			if _, werr := dst.Write(out); werr != nil {
				return werr
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
// JSON object (a batch, garbage).
func Peek(line []byte) (Envelope, bool) {
	var e Envelope
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
		return e, false
	}
	return e, true
}

// IsRequest, IsResponse and IsNotification classify a message.
func (e Envelope) IsRequest() bool      { return e.Method != "" && len(e.ID) > 0 && string(e.ID) != "null" }
func (e Envelope) IsNotification() bool { return e.Method != "" && !e.IsRequest() }
func (e Envelope) IsResponse() bool     { return e.Method == "" && len(e.ID) > 0 }
