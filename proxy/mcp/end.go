package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/swetouch/swetouch/proxy"
	"github.com/swetouch/swetouch/session"
)

// What the hub is told when a call's result comes: its end, and for a
// call never begun (a read told once it is over) the whole of it.

// tell tells the hub of a call never begun, with its result: its text,
// where the result is one text block and the hub's client can carry it
// so, as the JSON string the server wrote (toldTextHub).
func (r *Relay) tell(c call, e proxy.Envelope, place placement, lr *leanReading) {
	th, ok := r.hub.(toldTextHub)
	end, raw := r.endKeeping(c, e, place, ok, lr)
	if raw == nil {
		r.endUnanswered(c, end)
		return
	}
	if b, ok := r.toldBegin(c); ok {
		th.ToldText(b, end, raw)
	}
}

// end is what the hub is told when a call's result comes.
func (r *Relay) end(c call, e proxy.Envelope, place placement) session.End {
	end, _ := r.endKeeping(c, e, place, false, nil)
	return end
}

// endKeeping is end; with keepRaw, a result of one text block short
// enough to be told whole has its text left as the JSON string it came
// as, raw, and end's Output empty. lr, when not nil, is the result read
// already, as its line was lexed.
func (r *Relay) endKeeping(c call, e proxy.Envelope, place placement, keepRaw bool, lr *leanReading) (end session.End, raw json.RawMessage) {
	end = session.End{Events: r.eventsOf(c)}
	if len(e.Error) > 0 {
		end.Exit = 1
		end.Channel = place.channel(e.Result)
		return end, nil
	}
	res := readingOf(e.Result, place, keepRaw, lr)
	end.Output, end.Channel = res.text, res.channel
	if res.isError {
		end.Exit = 1
	}
	if res.raw != nil {
		if len(res.raw) <= 2*maxReported+2 {
			// its text is no longer than the JSON string it is in
			return end, res.raw
		}
		text, err := decodeString(res.raw)
		if err != nil {
			// jsonlex read it whole before: as encoding/json would
			json.Unmarshal(res.raw, &text)
		}
		end.Output = text
	}
	if n := len(end.Output); n > 2*maxReported {
		// the hub is told its head and tail, as the shim tells a long
		// command's output; the client gets the whole result
		end.Output, end.Tail, end.Elided, end.Bytes = end.Output[:maxReported], end.Output[n-maxReported:], true, n
		fmt.Fprintf(r.log, "swetouch mcp: %s's result is %d bytes: relayed whole, reported to the session as its first and last %d\n", c.tool, n, maxReported)
	}
	return end, nil
}

// maxReported is how much of a long result's text, at each end, the
// session is told (the shim keeps as much of a command's output).
const maxReported = 16 << 10

// readingOf is what a result reads as: lr's reading where the result
// was read as its line was lexed (nil: it was not), else read now.
func readingOf(result json.RawMessage, place placement, keepRaw bool, lr *leanReading) resultReading {
	if lr != nil {
		if res, ok := lr.reading(result, place, keepRaw); ok {
			return res
		}
	}
	return readResult(result, place, keepRaw)
}
