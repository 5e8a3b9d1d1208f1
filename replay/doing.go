package replay

import (
	"fmt"
	"time"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/trajectory"
)

// Doing is what the agent was doing at each step of a recording: the
// step's first command (a native action as "native TOOL", or its kind
// when it names no tool), with its time into the session when the
// recording has times. It says where a what-if intervention would land.
func Doing(rec *trajectory.Trajectory) map[int]string {
	var start time.Time
	doing := map[int]string{}
	for _, ev := range rec.Events {
		if start.IsZero() && !ev.Time.IsZero() {
			start = ev.Time
		}
		if ev.Step == nil || ev.Actor != event.Agent || doing[*ev.Step] != "" {
			continue
		}
		d := ev.Command
		if d == "" {
			tool := ev.Tool
			if tool == "" {
				tool = string(ev.Kind)
			}
			d = "native " + tool
		}
		if !ev.Time.IsZero() && !start.IsZero() {
			d = fmt.Sprintf("+%s  %s", ev.Time.Sub(start).Round(time.Millisecond), d)
		}
		doing[*ev.Step] = d
	}
	return doing
}
