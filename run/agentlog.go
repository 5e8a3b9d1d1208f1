package run

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/swetouch/swetouch/internal/rawfd"
)

// AgentLog is the file in a run's folder that keeps what the agent
// printed, so a failure can be read afterwards.
const AgentLog = "agent.log"

// maxAgentLog bounds agent.log: an agent that prints without end cannot
// fill the disk.
const maxAgentLog = 64 << 20

// ErrAgentStart is the error of a run whose agent could not be started
// (no such program, a sandbox that cannot hold it): result.json is
// written all the same, resolved null with the reason.
var ErrAgentStart = errors.New("the agent could not start")

// ErrSetup is the error of a run that could not be set up (its workspace,
// its hub): result.json is written, resolved null with the reason.
var ErrSetup = errors.New("the run could not be set up")

// agentLog keeps the agent's stdout and stderr, interleaved as they come.
type agentLog struct {
	mu  sync.Mutex
	f   *os.File
	w   io.Writer // f, written raw (quietio): the hub shares this process
	n   int64
	cut bool
}

func openAgentLog(dir string) (*agentLog, error) {
	f, err := os.Create(filepath.Join(dir, AgentLog))
	if err != nil {
		return nil, err
	}
	return &agentLog{f: f, w: rawfd.Writer(f)}, nil
}

// Write keeps b, up to the bound; it never fails the agent's output.
func (l *agentLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.cut:
	case l.n+int64(len(b)) > maxAgentLog:
		l.w.Write(b[:maxAgentLog-l.n])
		fmt.Fprintf(l.w, "\n[swetouch: agent.log stops here, at %d bytes]\n", maxAgentLog)
		l.n, l.cut = maxAgentLog, true
	default:
		l.w.Write(b)
		l.n += int64(len(b))
	}
	return len(b), nil
}

// tee is w with everything also kept in the log.
func (l *agentLog) tee(w io.Writer) io.Writer { return io.MultiWriter(l, orDiscard(w)) }

func (l *agentLog) Close() error { return l.f.Close() }

// unreached reads the agent's log for its own report that it never got an
// answer from its model (not logged in, the endpoint refused, no such
// model): the first line fn names, or "". fn reads the agent's own
// structured events, so a model's text, quoted inside them, cannot pass
// for one.
func unreached(dir string, fn func(line []byte) string) string {
	if fn == nil {
		return ""
	}
	f, err := os.Open(filepath.Join(dir, AgentLog))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxAgentLog)
	last := ""
	for sc.Scan() {
		if why := fn(sc.Bytes()); why != "" {
			last = why
		}
	}
	return last
}
