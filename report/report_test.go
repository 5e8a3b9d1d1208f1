package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/score"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/result"
)

// chromium finds a headless-capable Chromium, or skips saying how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testsupport.Missing(t, testsupport.Chromium, "headless Chromium not found (Debian: apt-get install chromium): the report's rendering is not checked")
	return ""
}

// browse runs Chromium headless on the page with extra flags and returns
// its standard output.
func browse(t *testing.T, page string, flags ...string) []byte {
	t.Helper()
	// a guard against a wedged browser, not a timing assertion
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--force-device-scale-factor=1"}, flags...)
	cmd := exec.CommandContext(ctx, chromium(t), append(args, "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", flags, err, stderr.String())
	}
	return out
}

// checkReport checks report.html as written and as Chromium shows it: the
// DOM after parsing holds every chart with one bar per agent and
// condition, and a timeline row per trial; the screenshot shows the bars
// in their colours.
func checkReport(t *testing.T, page string, rep *Report, texts ...string) {
	t.Helper()
	page, _ = filepath.Abs(page)
	var rateBars, deltaBars, retentionBars, userEdits, messages int
	vanilla := map[string]bool{}
	for _, r := range rep.Summary {
		vanilla[r.Agent] = vanilla[r.Agent] || r.Condition == "vanilla"
	}
	for _, r := range rep.Summary {
		if r.Trials > r.Unknown {
			rateBars++
			if r.Condition != "vanilla" && vanilla[r.Agent] {
				deltaBars++
			}
		}
		if r.Condition != "vanilla" && r.Retention != nil {
			retentionBars++
		}
	}
	for _, tr := range rep.Trials {
		for _, m := range tr.Marks {
			switch {
			case m.Kind == event.Edit && m.Actor == string(event.User):
				userEdits++
			case m.Kind == event.Message:
				messages++
			}
		}
	}
	if userEdits == 0 {
		t.Fatal("no user edit on any timeline")
	}
	t.Run("chromium", func(t *testing.T) {
		dom := string(browse(t, page, "--dump-dom"))
		for id, want := range map[string]int{"chart-rate": rateBars, "chart-delta": deltaBars, "chart-retention": retentionBars} {
			fig := section(dom, `id="`+id+`"`, "</figure>")
			if got := strings.Count(fig, `class="bar"`); got != want {
				t.Errorf("%s: %d bars in the browser's DOM, want %d", id, got, want)
			}
		}
		tl := section(dom, `id="timeline"`, "</svg>")
		if got := strings.Count(tl, `class="trial"`); got != len(rep.Trials) {
			t.Errorf("timeline: %d rows, want %d", got, len(rep.Trials))
		}
		if got := strings.Count(tl, `class="mark user-edit"`); got != userEdits {
			t.Errorf("timeline: %d user edits marked, want %d", got, userEdits)
		}
		for _, text := range append([]string{"Summary", "Charts", "Trials", "Timelines"}, texts...) {
			if !strings.Contains(dom, text) {
				t.Errorf("the page does not show %q", text)
			}
		}

		shot := filepath.Join(t.TempDir(), "report.png")
		browse(t, page, "--window-size=1100,3200", "--screenshot="+shot)
		img := decodePNG(t, shot)
		counts := colourCounts(img)
		// a full-height bar of the rate chart is plotH tall and at most
		// maxBarW-2 wide; vanilla resolves everything here, so the blue of
		// the vanilla bars alone covers this many pixels at the least
		vanillaFull := 0
		for _, r := range rep.Summary {
			if r.Condition == "vanilla" {
				vanillaFull += int(r.Rate * plotH * (maxBarW - 2) * 0.8)
			}
		}
		for _, c := range []struct {
			name, hex string
			least     int
		}{
			{"vanilla bars", conditionColours["vanilla"], vanillaFull},
			{"counter-edit bars and user edits", conditionColours["counter-edit"], userEdits * 20},
			{"test marks", kindColours[event.Test], len(rep.Trials) * 20},
			{"message marks", messageColour, messages * 20},
		} {
			if got := counts[c.hex]; got < c.least {
				t.Errorf("screenshot: %d pixels of the %s (%s), want at least %d", got, c.name, c.hex, c.least)
			}
		}
		checkLayout(t, page)
		kept := filepath.Join(os.TempDir(), "swetouch-report-screenshot.png")
		if b, err := os.ReadFile(shot); err == nil && os.WriteFile(kept, b, 0o644) == nil {
			t.Logf("screenshot of the report as Chromium renders it: %s (%dx%d)", kept, img.Bounds().Dx(), img.Bounds().Dy())
		}
	})
}

// section is the text of s from the first from to the next to after it.
func section(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// colourCounts counts the pixels of each colour, as #rrggbb.
func colourCounts(img image.Image) map[string]int {
	counts := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)]++
		}
	}
	return counts
}

// TestReportFiles: the report's files agree with each other, escape what
// agents wrote, and a folder without vanilla says so instead of drawing Δ.
func TestReportFiles(t *testing.T) {
	testsupport.Slow(t)
	root := t.TempDir()
	yes, no := true, false
	for i, tc := range []struct {
		cond     string
		resolved *bool
	}{{"counter-edit", &yes}, {"counter-edit", &no}, {"counter-edit", nil}} {
		d := filepath.Join(root, "a", tc.cond, "t", fmt.Sprintf("run-%d", i))
		os.MkdirAll(d, 0o755)
		run := result.Run{Task: "t", Condition: tc.cond, AgentName: "a<script>", Resolved: tc.resolved, Steps: 2}
		if i == 0 {
			run.Applied, run.Delivered = 1, 1 // exposed, and resolved
		}
		b, _ := json.Marshal(run)
		os.WriteFile(filepath.Join(d, "result.json"), b, 0o644)
		traj := `{"format":"swetouch-trajectory","version":1}
{"seq":1,"actor":"agent","kind":"read","step":0,"command":"cat x.py </b><script>alert(1)</script>"}
{"seq":2,"actor":"user","kind":"edit","step":0,"diff":"+++ b/x.py\n+kept line\n+gone line\n"}
{"seq":3,"actor":"agent","kind":"edit","step":1,"source":"shell","command":"sed -i 1d x.py"}
{"seq":4,"actor":"agent","kind":"edit","step":1,"source":"watch","command":"sed -i 1d x.py","scopes":[{"path":"x.py","start":1,"end":1,"precision":"line"}]}
{"seq":5,"actor":"agent","kind":"test","step":2,"command":"pytest"}
`
		os.WriteFile(filepath.Join(d, "trajectory.jsonl"), []byte(traj), 0o644)
		os.WriteFile(filepath.Join(d, "final.diff"), []byte("+++ b/x.py\n+kept line\n"), 0o644)
	}
	trials, err := score.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rep := New("no vanilla", root, trials)
	out := filepath.Join(root, "out")
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	tr := rep.Trials[0]
	if tr.Run != "run-0" || tr.Fate != score.Replaced || tr.After == nil || *tr.After != (score.Counts{Edits: 1, Tests: 1}) {
		t.Errorf("trial %+v after %+v", tr, tr.After)
	}
	if len(tr.Marks) != 4 || !strings.Contains(tr.Marks[2].Label, "x.py:1-1") {
		t.Errorf("marks %+v: the shell's and the watcher's edit are one mark, with the watcher's lines", tr.Marks)
	}
	html, _ := os.ReadFile(filepath.Join(out, HTMLFile))
	if bytes.Contains(html, []byte("<script>")) {
		t.Error("report.html holds an unescaped <script>")
	}
	for _, want := range []string{"No vanilla trials", "Δ needs vanilla trials", "null", `<td>1/2</td><td>100%<span class="ci">[100.0, 100.0]</span></td>`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(out, TrialsCSV))
	if !strings.Contains(string(csv), "a/counter-edit/t/run-2,t,a<script>,counter-edit,run-2,null,,2,0,0,replaced,0,1,1") {
		t.Errorf("trials.csv:\n%s", csv)
	}
	var back Report
	js, _ := os.ReadFile(filepath.Join(out, JSONFile))
	if err := json.Unmarshal(js, &back); err != nil || len(back.Trials) != 3 || back.Summary[0].Unknown != 1 || back.Summary[0].Exposed != 1 {
		t.Errorf("report.json: %v %+v", err, back.Summary)
	}
	checkReport(t, filepath.Join(out, HTMLFile), rep)
}

// TestReportConversations: conversations get their table, the
// resolved-within-k curves with their bands, LDPR bars with whiskers,
// the ranks by budget, the paired comparisons and a turn timeline per
// trial (persona, what the user revealed, tests passing, edits,
// Counter-Edits), as Chromium shows them.
func TestReportConversations(t *testing.T) {
	testsupport.Slow(t)
	root := t.TempDir()
	at := func(n int) *int { return &n }
	yes, no := true, false
	for i, c := range []struct {
		agent, task string
		resolved    *bool
		turn        *int
		w           float64
	}{{"claude-sonnet-4.5", "c1", &yes, at(1), 1}, {"claude-sonnet-4.5", "c2", &yes, at(2), 1.5}, {"opencode-gpt-5", "c1", &yes, at(3), 3}, {"opencode-gpt-5", "c2", &no, nil, 5}} {
		d := filepath.Join(root, c.agent, "vanilla", c.task, "run-0")
		os.MkdirAll(d, 0o755)
		turns := []result.Turn{{Turn: 1, Persona: "vague/wrong", Phase: "p1", Items: []string{}, UserMessage: "hi", Tests: map[string]string{"t1": "fail", "t2": "pass"}, Verdict: "ongoing", UserEdits: []string{"pricing.py"}},
			{Turn: 2, Persona: "precise/correct", Phase: "p1", Items: []string{"s1", "c2"}, UserMessage: "more", Tests: map[string]string{"t1": "pass", "t2": "pass"}, Edited: true, Verdict: "resolved"}}
		b, _ := json.Marshal(result.Run{Task: c.task, Condition: "vanilla", AgentName: c.agent, Resolved: c.resolved, Steps: 2,
			Conversation: &result.Conversation{PersonaChain: []string{"vague/wrong"}, Budget: 5, Turns: turns, ResolvedTurn: c.turn, WeightedTurns: c.w}})
		os.WriteFile(filepath.Join(d, "result.json"), b, 0o644)
		os.WriteFile(filepath.Join(d, "trajectory.jsonl"), []byte(`{"format":"swetouch-trajectory","version":1}`+"\n"+
			fmt.Sprintf(`{"seq":1,"actor":"agent","kind":"read","step":0,"command":"cat x%d.py"}`, i)+"\n"), 0o644)
	}
	trials, err := score.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rep := New("conversations", root, trials)
	out := filepath.Join(root, "out")
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	if len(rep.Turns) != 2 || len(rep.Comparisons) == 0 {
		t.Fatalf("turns %+v comparisons %+v", rep.Turns, rep.Comparisons)
	}
	// a folder of conversations alone has no single-turn summary: no
	// empty table, no empty charts
	html, _ := os.ReadFile(filepath.Join(out, HTMLFile))
	for _, absent := range []string{`id="summary"`, `id="charts"`, `id="chart-rate"`, `id="chart-delta"`, `id="chart-retention"`, "No vanilla trials"} {
		if bytes.Contains(html, []byte(absent)) {
			t.Errorf("report.html of conversations alone holds %s", absent)
		}
	}
	page, _ := filepath.Abs(filepath.Join(out, HTMLFile))
	dom := string(browse(t, page, "--dump-dom"))
	curves := section(dom, `id="chart-turns"`, "</figure>")
	ldpr := section(dom, `id="chart-ldpr"`, "</figure>")
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"curves", strings.Count(curves, `class="curve"`), 2},
		{"bands", strings.Count(curves, `class="band"`), 2},
		{"LDPR bars", strings.Count(ldpr, `class="bar"`), 2},
		{"LDPR whiskers", strings.Count(ldpr, `class="whisker"`), 2 * 3},
		{"turn timelines", strings.Count(dom, `class="turn-timeline"`), 4},
		{"comparison rows", strings.Count(section(dom, `id="separation"`, "</table>"), "<tr>") - 1, len(rep.Comparisons)},
		{"rank lines", strings.Count(section(dom, `id="chart-ranks"`, "</figure>"), `class="rank"`), 2},
		{"separation grids", strings.Count(dom, `<table class="grid"`), 2}, // LDPR and first turn under vanilla
		{"pair cells", strings.Count(dom, `class="apart"`) + strings.Count(dom, `class="separated"`), 2 * 2},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d in the browser's DOM, want %d", c.what, c.got, c.want)
		}
	}
	// at a laptop's width: no element wider than the page, no legend
	// cut by its chart or drawn over another (agents' names as long as
	// real ones)
	checkLayout(t, page)
	for _, text := range []string{"Conversations", "Paired comparisons", "vague/wrong", "s1, c2", "pricing.py", "1/2", "place at k = 1"} {
		if !strings.Contains(dom, text) {
			t.Errorf("the page does not show %q", text)
		}
	}
}
