package proxy

import (
	"encoding/json"
	"errors"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// errNotString stops a read whose method is not a string (or null):
// encoding/json refuses such a line, and the slow path says so.
var errNotString = errors.New("method: not a string")

// field reads the value of the envelope's field key at p (skips it when
// the envelope has no such field).
func (e *Envelope) field(p *fastjson.Lexer, key string) error {
	var raw *json.RawMessage
	switch key {
	case "id":
		raw = &e.ID
	case "result":
		raw = &e.Result
	case "error":
		raw = &e.Error
	case "params":
		raw = &e.Params
	case "method":
		if p.Null() {
			return nil // leaves it as it was, as encoding/json does
		}
		if p.Peek() != '"' {
			return errNotString
		}
		return p.Str(&e.Method)
	default:
		return p.Skip()
	}
	var err error
	*raw, err = p.Raw() // the last one given, as encoding/json keeps
	return err
}

// PeekReading is Peek for a relay that reads a result too: read (when
// not nil) is handed a lexer at the result's value (at each, where a
// line has several: the last counts, as encoding/json keeps) and reads
// that one value whole, in the same pass. Where it fails, the value is
// skipped instead and read is false; read is false too where the line
// is left to encoding/json. A relay that read a result after Peek lexed
// each result twice (a file's text, on every read).
//
// The envelope is read in one pass (internal/jsonlex), which also checks
// the line is JSON: the relays see every message, and encoding/json's
// decode of each (then a validation and a second walk with copies) was
// much of a relay's own time per call. A line that only encoding/json
// reads exactly (a key beyond ASCII, whose folding is Unicode's) is
// left to it.
func PeekReading(line []byte, read func(fastjson.Lexer) (fastjson.Lexer, error)) (e Envelope, readOK, ok bool) {
	if len(line) == 0 || line[0] != '{' {
		return Envelope{}, false, false
	}
	if fastjson.Reference() {
		slow, ok := slowPeek(line)
		return slow, false, ok
	}
	p := fastjson.New(line)
	err := p.Fields(func(key string) error {
		if key != "result" || read == nil {
			return e.field(p, key)
		}
		var readErr, err error
		e.Result, readErr, err = p.RawWith(read)
		readOK = readErr == nil
		return err
	})
	if err == nil && p.End() == nil {
		return e, readOK, true
	}
	// not JSON (which encoding/json refuses too), or JSON only it reads
	// exactly
	slow, ok := slowPeek(line)
	return slow, false, ok
}

// slowPeek is Peek by encoding/json.
func slowPeek(line []byte) (Envelope, bool) {
	var e Envelope
	if json.Unmarshal(line, &e) != nil {
		return e, false
	}
	return e, true
}
