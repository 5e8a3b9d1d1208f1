package replay

import (
	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/trajectory"
)

// Turn is one turn of a recorded conversation: its actions and the reply
// that ended it.
type Turn struct {
	Actions []Action
	Reply   string
}

// Turns splits a recorded conversation into its turns: a user's message
// on the turn channel opens the next one. A trajectory of one turn is
// one Turn.
func Turns(tr *trajectory.Trajectory) []Turn {
	cuts := []int64{}
	var replies []string
	reply := ""
	for _, ev := range tr.Events {
		switch {
		case ev.Kind == event.Message && ev.Actor == event.User && ev.Note == "turn":
			cuts = append(cuts, ev.Seq)
			replies = append(replies, reply)
			reply = ""
		case ev.Kind == event.Message && ev.Actor == event.Agent:
			reply = ev.Text
		}
	}
	replies = append(replies, reply)
	turns := make([]Turn, len(cuts)+1)
	for i := range turns {
		turns[i].Reply = replies[i]
	}
	for _, a := range Actions(tr) {
		n := 0
		for n < len(cuts) && len(a.Recorded) > 0 && a.Recorded[0].Seq > cuts[n] {
			n++
		}
		turns[n].Actions = append(turns[n].Actions, a)
	}
	return turns
}
