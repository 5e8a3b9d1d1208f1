package wire

import (
	"encoding/json"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// readReply is parseReply, or encoding/json's reading of the line where
// SWETOUCH_REFERENCE=1 (fastjson.Reference).
func readReply(line []byte) (reply, error) {
	if !fastjson.Reference() {
		return parseReply(line)
	}
	var r reply
	err := json.Unmarshal(line, &r)
	return r, err
}

// appendLine is appendLeanLine, or false (encoding/json writes the line)
// where SWETOUCH_REFERENCE=1.
func appendLine(dst []byte, req *Request) ([]byte, bool) {
	if fastjson.Reference() {
		return dst, false
	}
	return appendLeanLine(dst, req)
}

// ParseRequestLean is ParseRequest, or false (the hub reads the line with
// encoding/json) where SWETOUCH_REFERENCE=1: the hub's seam.
func ParseRequestLean(line []byte) (Request, bool) {
	if fastjson.Reference() {
		return Request{}, false
	}
	return ParseRequest(line)
}

// AppendResponseLean is AppendResponse, or false (the hub writes the
// response with encoding/json) where SWETOUCH_REFERENCE=1.
func AppendResponseLean(b []byte, r Response) ([]byte, bool) {
	if fastjson.Reference() {
		return b, false
	}
	return AppendResponse(b, r)
}
