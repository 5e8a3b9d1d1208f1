package agents

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/internal/safefile"
)

// miniContinue is the next turn's entry (minisweagent_continue.py): mini's
// own command line, its agent's messages seeded from the previous turn's
// trajectory, the user's message added as mini's interactive agent adds a
// new task.
//
//go:embed minisweagent_continue.py
var miniContinue []byte

// MiniSWEContinue is the file the next turn's entry is written to in the
// launch's scratch folder, which the sandboxed agent reads.
const MiniSWEContinue = "swetouch_mini_continue.py"

// miniSaved starts the line the mini CLI prints when its agent has
// finished and its trajectory is written: the turn ended as the agent
// meant it to, and there is a conversation to go on with. The path after
// it is not read from the line, since the console wraps it at 80 columns.
const miniSaved = "Saved trajectory to"

// miniSWETurns goes on with a launch's conversation: the session is its
// trajectory file, once the CLI says it saved it; the reply is what the
// agent submitted, or else what it said when it did; the next turn runs
// the same command line through miniContinue, seeded from that file.
func miniSWETurns(l Launch) *Turns {
	traj := filepath.Join(l.Scratch, MiniSWETrajectory)
	return &Turns{
		Session: func(line []byte) string {
			if strings.HasPrefix(string(line), miniSaved) {
				return traj
			}
			return ""
		},
		Reply: func(sofar string, line []byte) string {
			if !strings.HasPrefix(string(line), miniSaved) {
				return sofar
			}
			return miniReply(traj)
		},
		Resume: func(argv []string, session string) []string {
			// the entry runs under mini's own interpreter (its #! line):
			// started by its path, not the install's python, which is a
			// link the sandbox cannot show as a file of its own
			entry := filepath.Join(l.Scratch, MiniSWEContinue)
			script := append([]byte(shebangOf(argv[0])), miniContinue...)
			// written each turn, since the agent may have changed its
			// copy; a write that fails shows in agent.log as the
			// entry's failure to start
			os.WriteFile(entry, script, 0o755)
			return append([]string{entry, session}, argv[1:]...)
		},
	}
}

// miniReply is the agent's reply in its trajectory at path: its
// submission (what follows COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT in the
// submitting command's output), or, when that is empty, the text of its
// last assistant message (its words as it submitted). The file is the
// agent's: read only as a regular file of the scratch folder, bounded.
func miniReply(path string) string {
	if st, err := os.Lstat(path); err != nil || st.Size() > maxMiniTrajectory {
		return ""
	}
	b, err := safefile.ReadIn(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return ""
	}
	var f struct {
		Info struct {
			Submission string `json:"submission"`
		} `json:"info"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	if s := strings.TrimSpace(f.Info.Submission); s != "" {
		return s
	}
	for i := len(f.Messages) - 1; i >= 0; i-- {
		if m := f.Messages[i]; m.Role == "assistant" {
			return strings.TrimSpace(contentText(m.Content))
		}
	}
	return ""
}

// maxMiniTrajectory bounds the trajectory read for a reply (a run's kept
// files have the same bound).
const maxMiniTrajectory = 64 << 20

// contentText is a chat message's content as text: a string, or its text
// parts joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// shebangOf is the #! line of the Python script bin (mini's: its
// install's interpreter, over its packages), or one naming the python
// beside it when it has none.
func shebangOf(bin string) string {
	if f, err := os.Open(bin); err == nil {
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		if strings.HasPrefix(line, "#!") && strings.HasSuffix(line, "\n") {
			return line
		}
	}
	return "#!" + filepath.Join(filepath.Dir(bin), "python") + "\n"
}
