package user

import (
	"errors"
	"fmt"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// Kind is one kind of user a run can have. A run's user is a list of
// kinds, each made on top of the one before it (Build): SWE-Touch's
// region user first, a model writing its words next, UserSWE's
// conversation last. Adding a kind of user is a file here with its Kind,
// and a flag that puts it in the list.
type Kind interface {
	// Make is the user of this kind over below (nil: the first).
	Make(below User) (User, error)
}

// Build makes the run's user from its kinds in order (nil for none: the
// run records only).
func Build(kinds ...Kind) (User, error) {
	var u User
	for _, k := range kinds {
		next, err := k.Make(u)
		if err != nil {
			return nil, err
		}
		u = next
	}
	return u, nil
}

// Labelled is a user that acts under a SWE-Touch condition and match,
// which a run's files name.
type Labelled interface {
	Condition() policy.Condition
	Match() policy.Match
}

// RegionKind is SWE-Touch's region user for a record (NewRegion): the
// first of a run's kinds.
type RegionKind struct {
	Record  *task.Record
	Options Options
}

// Make is the region user; there is no user below it.
func (k RegionKind) Make(below User) (User, error) {
	if below != nil {
		return nil, errors.New("the region user comes first")
	}
	return NewRegion(k.Record, k.Options)
}

// ContextualKind writes the region user's messages with a model from
// what the agent did (NewContextual); Task is the agent's instruction.
type ContextualKind struct {
	Writer Writer
	Task   string
}

// Make is the contextual user over the region user below.
func (k ContextualKind) Make(below User) (User, error) {
	r, ok := below.(*Region)
	if !ok {
		return nil, fmt.Errorf("a contextual user writes a region user's messages, and %T is not one", below)
	}
	return NewContextual(r, k.Writer, k.Task), nil
}

// ConversationKind is a conversational user who talks at each turn's end
// (UserSWE); a user below it still acts inside the turns (Both).
type ConversationKind struct{ Talker Conversational }

// Make is the conversation over below, or alone.
func (k ConversationKind) Make(below User) (User, error) {
	if below == nil {
		return k.Talker, nil
	}
	return Both(below, k.Talker), nil
}
