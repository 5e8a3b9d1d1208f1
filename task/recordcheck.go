package task

import "io"

// CheckRecords reads a whole records file and returns how many records
// it holds and every fault in it, each a *RecordError (file, line,
// field), in the file's order: every line's JSON and schema, every diff
// parsed, every path checked, duplicates. ReadRecords stops at the first
// fault; this is for a file's author, who wants them all at once.
func CheckRecords(r io.Reader, name string) (records int, faults []error) {
	records = scanRecords(r, name, func(_ *Record, fs []error) bool {
		faults = append(faults, fs...)
		return true
	})
	return records, faults
}
