// Package replay works on recorded runs: it imports other harnesses' runs
// (mini-swe-agent v1 and v2) as trajectories, re-drives a recording's
// commands against a fresh workspace, and compares a replay with its
// recording. The trajectory file itself is package trajectory's.
package replay
