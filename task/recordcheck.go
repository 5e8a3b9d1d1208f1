package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// CheckRecords reads a whole records file and returns how many records
// it holds and every fault in it, each a *RecordError (file, line,
// field), in the file's order: every line's JSON and schema, every diff
// parsed, every path checked, duplicates. ReadRecords stops at the first
// fault; this is for a file's author, who wants them all at once.
func CheckRecords(r io.Reader, name string) (records int, faults []error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		records++
		rec := &Record{File: name, Line: line}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(rec); err != nil {
			faults = append(faults, decodeError(name, line, err))
			continue
		}
		if d.More() {
			faults = append(faults, &RecordError{name, line, "", "trailing data after the record"})
		}
		faults = append(faults, rec.Faults()...)
		key := rec.Benchmark + "/" + rec.InstanceID
		if prev, dup := seen[key]; dup && rec.InstanceID != "" {
			faults = append(faults, &RecordError{name, line, "instance_id", fmt.Sprintf("duplicate of line %d (%s)", prev, rec.InstanceID)})
		} else if !dup {
			seen[key] = line
		}
	}
	if err := sc.Err(); err != nil {
		faults = append(faults, &RecordError{name, line + 1, "", err.Error()})
	}
	return records, faults
}
