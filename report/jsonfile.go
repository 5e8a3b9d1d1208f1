package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/swetouch/swetouch/internal/fastjson"
)

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
		t, err := fastjson.MarshalIndent(&r.Trials[i], "    ", "  ")
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
