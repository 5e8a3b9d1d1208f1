// Package event is the one vocabulary every part of swetouch speaks: what an
// agent (or the user, or the harness) did, with file and line scope. Adapters
// produce events, the policy decides on them, the trajectory stores them.
package event
