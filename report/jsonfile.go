package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/swetouch/swetouch/internal/fastjson"
)

// marshalIndent is encoding/json's MarshalIndent by its v1 rules on the
// v2 engine (about twice as fast: a 100,000 trials' report.json was a
// seventh of report's CPU). The two differ only where a string is not
// UTF-8: encoding/json writes \ufffd for a bad byte, the v2 engine the
// character itself, so output holding that character is encoding/json's
// (TestWriteJSONIsEncoders). SWETOUCH_REFERENCE=1 sends it all to
// encoding/json.
func marshalIndent(v any, prefix, indent string) ([]byte, error) {
	if !fastjson.Reference() {
		b, err := jsonv1.MarshalIndent(v, prefix, indent)
		if err == nil && !bytes.ContainsRune(b, utf8.RuneError) {
			return b, nil
		}
	}
	return json.MarshalIndent(v, prefix, indent)
}

// WriteJSON writes report.json: the bytes json.Encoder with a two-space
// indent writes for the report, a trial at a time, so 100,000 trials'
// timelines are never one buffer (twice: marshalled, then indented).
func (r *Report) WriteJSON(w io.Writer) error {
	head := *r
	head.Trials = []TrialSummary{}
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	const empty = "[]\n}"
	if !bytes.HasSuffix(b, []byte(empty)) {
		return fmt.Errorf("report.json: the trials are not the report's last field")
	}
	if len(r.Trials) == 0 {
		_, err := fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if _, err := w.Write(b[:len(b)-len(empty)]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i := range r.Trials {
		t, err := marshalIndent(&r.Trials[i], "    ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == len(r.Trials)-1 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "    %s%s", t, sep); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "  ]\n}\n")
	return err
}
