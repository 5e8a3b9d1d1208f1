// Package replay owns the trajectory format (a versioned NDJSON file: a
// header line, then one event per line in seq order), its reader and
// writer, and importers that turn other harnesses' runs (mini-swe-agent v1
// and v2) into trajectories.
package replay
