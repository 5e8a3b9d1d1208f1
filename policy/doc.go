// Package policy decides interventions: given a record's K interventions, a
// condition, a match mode and a schedule, it says for each agent action
// whether to apply a Counter-Edit and which message to send. It is pure: no
// I/O, no clocks, no randomness; the hub applies what it decides and
// reports the outcome back.
package policy
