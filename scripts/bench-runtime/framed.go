package main

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// helperProxyFramed is the least a relay that reads HTTP can be: a TCP
// proxy that reads each message whole by its HTTP/1.1 framing (a head to
// its blank line, then a body by its length, or chunk by chunk), as a
// relay must to see a request's body before it goes on, and tells a
// listener of each as the telling TCP proxy does (a line before each
// request goes on, one after each response is out). Nothing else: no
// header is looked at but the framing's, no JSON read. Args: SOCKET
// ADDR.
const helperProxyFramed = "-proxy-http-told"

func proxyFramed(sock, upstream string) {
	tell := teller(sock)
	// pump copies src to dst message by message, telling before or after
	// each
	pump := func(dst io.Writer, src io.Reader, before, after string) {
		br := bufio.NewReaderSize(src, 64<<10)
		var msg []byte
		for {
			var err error
			if msg, err = readMessage(br, msg[:0]); err != nil {
				return
			}
			if before != "" {
				tell(before)
			}
			if _, err := dst.Write(msg); err != nil {
				return
			}
			if after != "" {
				tell(after)
			}
		}
	}
	proxyTCP(listenURL(), upstream,
		func(dst io.Writer, src io.Reader) { pump(dst, src, "b\n", "") },
		func(dst io.Writer, src io.Reader) { pump(dst, src, "", "e\n") })
}

// readMessage appends one HTTP/1.1 message read from br to msg: its head
// and its body, framed by Content-Length or chunked (none: no body, as a
// request without either and the bench's bodiless answers have).
func readMessage(br *bufio.Reader, msg []byte) ([]byte, error) {
	var length int64
	chunked := false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return msg, err
		}
		msg = append(msg, line...)
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		switch {
		case !ok:
		case bytes.EqualFold(k, []byte("content-length")):
			if length, err = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err != nil {
				return msg, err
			}
		case bytes.EqualFold(k, []byte("transfer-encoding")):
			chunked = bytes.Contains(bytes.ToLower(v), []byte("chunked"))
		}
	}
	if !chunked {
		return appendN(br, msg, length)
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return msg, err
		}
		msg = append(msg, line...)
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil {
			return msg, err
		}
		if n == 0 { // the trailer, to its blank line
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return msg, err
				}
				msg = append(msg, line...)
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return msg, nil
				}
			}
		}
		if msg, err = appendN(br, msg, n+2); err != nil { // the chunk and its CRLF
			return msg, err
		}
	}
}

// appendN appends n bytes read from br to msg.
func appendN(br *bufio.Reader, msg []byte, n int64) ([]byte, error) {
	start := len(msg)
	msg = append(msg, make([]byte, n)...)
	_, err := io.ReadFull(br, msg[start:])
	return msg, err
}
