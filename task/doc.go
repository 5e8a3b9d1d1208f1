// Package task reads task sources: SWE-Touch dataset-record-v1 JSONL files
// exactly as released (Counter-Edits bound to an instance), with errors that
// name the file, line and field of anything malformed.
package task
