// Package score holds the metrics and their statistics, and nothing
// else: per agent and condition the resolve rate, Δ against vanilla,
// retention and the fate of the user's edit; for conversations the
// resolved-by-turn curve, LDPR and the ranks by budget; intervals from a
// task bootstrap and paired permutation tests (package stats); the audit's
// counts and the traffic's cost. It reads run folders; running trials is
// package eval's, drawing package report's, authoring records package
// author's.
package score
