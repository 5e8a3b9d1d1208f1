package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport"
	"mvdan.cc/sh/v3/syntax"
)

// corpusTrajectories are the dev corpus's runs.
var corpusTrajectories = filepath.Join("..", "..", "shared", "corpus", "trajectories", "gemini*", "*.traj.json")

// corpusCommands are the commands of the dev corpus's executed turns.
func corpusCommands(b testing.TB) []string {
	files, _ := filepath.Glob(corpusTrajectories)
	if len(files) == 0 {
		testsupport.Missing(b, testsupport.Corpus, "corpus not found at %s", corpusTrajectories)
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
	return cmds
}

// BenchmarkClassifyCorpus classifies every command of the dev corpus; the
// commands/s metric is the figure to compare with the 100,000/s target.
// Run it with -cpu 1. "parse" is the floor: mvdan.cc/sh parsing the same
// commands and nothing else, so the ratio of the two says what the
// classifier itself costs on a machine of any speed.
func BenchmarkClassifyCorpus(b *testing.B) {
	cmds := corpusCommands(b)
	b.Run("classify", func(b *testing.B) {
		for b.Loop() {
			s := NewSession() // what one session learns is not carried to the next pass
			for _, c := range cmds {
				s.Classify(c)
			}
		}
		b.ReportMetric(float64(b.N*len(cmds))/b.Elapsed().Seconds(), "commands/s")
	})
	b.Run("parse", func(b *testing.B) {
		p := syntax.NewParser(syntax.Variant(syntax.LangBash))
		for b.Loop() {
			for _, c := range cmds {
				p.Parse(strings.NewReader(c), "")
			}
		}
		b.ReportMetric(float64(b.N*len(cmds))/b.Elapsed().Seconds(), "commands/s")
	})
}
