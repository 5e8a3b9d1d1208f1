package score

import (
	"bytes"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/trajectory"
)

// markEvent is the part of a trajectory's event a timeline and the
// user's edit's fate read: not its output, most of a trajectory's bytes,
// which is then checked as JSON but never copied out.
type markEvent struct {
	Seq     int64          `json:"seq"`
	Source  string         `json:"source,omitempty"`
	Actor   event.Actor    `json:"actor,omitempty"`
	Kind    event.Kind     `json:"kind"`
	Scopes  []event.Scope  `json:"scopes,omitempty"`
	Step    *int           `json:"step,omitempty"`
	Command string         `json:"command,omitempty"`
	Tool    string         `json:"tool,omitempty"`
	Diff    string         `json:"diff,omitempty"`
	Text    string         `json:"text,omitempty"`
	Attempt *event.Attempt `json:"attempt,omitempty"`
}

// figureEvent is the part the figures read (the user's edits' diffs and
// the agent's actions after them) when no timeline is drawn: no string
// but a user's diff is copied out of the line.
type figureEvent struct {
	Seq    int64       `json:"seq"`
	Source string      `json:"source,omitempty"`
	Actor  event.Actor `json:"actor,omitempty"`
	Kind   event.Kind  `json:"kind"`
	Step   *int        `json:"step,omitempty"`
	Diff   string      `json:"diff,omitempty"`
}

// trajectoryHeader is the first line's fields a reader checks.
type trajectoryHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// readMarks reads a trajectory's events as replay.Read does (the header's
// format and version checked, a torn last line dropped, seq increasing;
// any other bad line fails the whole), keeping what markOf reads, or
// without timelines only what the figures read.
func readMarks(data []byte, timelines bool) ([]event.Event, error) {
	var evs []event.Event
	lineNo := 0
	var prevSeq int64
	for len(data) > 0 {
		lineNo++
		line := data
		last := true
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data, last = data[:i], data[i+1:], false
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if lineNo == 1 {
			var h trajectoryHeader
			if err := jsonv1.Unmarshal(line, &h); err != nil {
				return nil, fmt.Errorf("line 1: header: %v", err)
			}
			if h.Format != trajectory.Format || h.Version < 1 || h.Version > trajectory.Version {
				return nil, fmt.Errorf("line 1: header: format %q version %d", h.Format, h.Version)
			}
			continue
		}
		ev, err := decodeEvent(line, timelines)
		if err != nil {
			if last {
				break
			}
			return nil, fmt.Errorf("line %d: %v", lineNo, err)
		}
		if ev.Seq <= prevSeq {
			return nil, fmt.Errorf("line %d: seq %d does not follow %d", lineNo, ev.Seq, prevSeq)
		}
		prevSeq = ev.Seq
		evs = append(evs, ev)
	}
	if lineNo == 0 {
		return nil, fmt.Errorf("empty trajectory: no header")
	}
	return evs, nil
}

func decodeEvent(line []byte, timelines bool) (event.Event, error) {
	if !timelines {
		var f figureEvent
		err := jsonv1.Unmarshal(line, &f)
		if f.Actor != event.User {
			f.Diff = "" // a user's diff is all the figures read of one
		}
		return event.Event{Seq: f.Seq, Source: f.Source, Actor: f.Actor, Kind: f.Kind, Step: f.Step, Diff: f.Diff}, err
	}
	var m markEvent
	err := jsonv1.Unmarshal(line, &m)
	return event.Event{Seq: m.Seq, Source: m.Source, Actor: m.Actor, Kind: m.Kind, Scopes: m.Scopes,
		Step: m.Step, Command: m.Command, Tool: m.Tool, Diff: m.Diff, Text: m.Text, Attempt: m.Attempt}, err
}

// mayHoldUserEvent says whether a trajectory can hold an event whose
// actor is the user: "user" as a JSON string, or an escape that could
// spell it. Without one there is no user's edit to find a fate for.
func mayHoldUserEvent(data []byte) bool {
	return bytes.Contains(data, []byte(`"user"`)) || bytes.Contains(data, []byte(`\u`))
}
