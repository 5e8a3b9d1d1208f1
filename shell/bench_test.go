package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// BenchmarkClassifyCorpus classifies every command of the dev corpus; the
// commands/s metric is the figure to compare with the 100,000/s target.
func BenchmarkClassifyCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "trajectories", "gemini*", "*.traj.json"))
	if len(files) == 0 {
		b.Skip("corpus not found")
	}
	block := regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```")
	var cmds []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var t struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		json.Unmarshal(data, &t)
		for _, m := range t.Messages {
			if m.Role == "assistant" {
				if bs := block.FindAllStringSubmatch(m.Content, -1); len(bs) == 1 {
					cmds = append(cmds, bs[0][1])
				}
			}
		}
	}
	s := NewSession()
	n := 0
	for b.Loop() {
		for _, c := range cmds {
			s.Classify(c)
		}
		n += len(cmds)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
}
