package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swetouch/swetouch/run"

	"github.com/swetouch/swetouch/agents"
	"github.com/swetouch/swetouch/internal/testsupport"
	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

// TestVanillaIdentity: under vanilla, the model receives the same
// requests from each agent with the shim in place as without it, once
// run-specific values (workspace path, session and message ids, dates)
// are masked.
func TestVanillaIdentity(t *testing.T) {
	testsupport.Slow(t)
	shimDir, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct{ name, model string }{{"claude", "claude-sonnet-4-5"}, {"gemini", "gemini-2.5-pro"}, {"opencode", ""}, {"codex", ""}} {
		t.Run(a.name, func(t *testing.T) { vanillaIdentity(t, shimDir, a.name, a.model) })
	}
}

func vanillaIdentity(t *testing.T, shimDir, agent, modelName string) {
	p, bin, err := agents.Find(agent)
	if err != nil {
		testsupport.Missing(t, testsupport.Agents, "%s is not installed: %v", agent, err)
	}
	tk, _ := task.Load(filepath.Join(examplesDir, "tasks", "py-discount"))
	script := filepath.Join(examplesDir, "agents", agent, "py-discount.script.json")
	var agentTime [2]time.Duration
	session1 := func(through bool) (requests []string, ws string) {
		s, _ := modelserver.LoadScript(script)
		srv := modelserver.NewServer(s, nil)
		ts := httptest.NewServer(srv)
		defer ts.Close()
		if through {
			out := t.TempDir()
			res, err := run.Trial(context.Background(), run.Config{
				Task: tk, Condition: policy.Vanilla, Out: out, Shim: filepath.Join(shimDir, "swetouch-shim"), KeepWorkspace: true,
				Agent: agents.Invocation{Argv: p.Command(agents.Launch{Bin: bin, Swetouch: filepath.Join(shimDir, "swetouch")}, "{instruction}", modelName), Env: p.Env(ts.URL, filepath.Join(shimDir, "swetouch"), t.TempDir()), Observe: p.Observe, Own: p.Own},
			})
			if err != nil {
				t.Fatal(err)
			}
			ws = res.Workspace
			agentTime[0] = time.Duration(res.Timings.Agent * float64(time.Second))
		} else {
			ws, err = run.Workspace(tk.Repo)
			if err != nil {
				t.Fatal(err)
			}
			args := p.Command(agents.Launch{Bin: bin, Swetouch: filepath.Join(shimDir, "swetouch")}, tk.Instruction, modelName)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir, cmd.Env = ws, append(append(os.Environ(), "PWD="+ws), p.Env(ts.URL, filepath.Join(shimDir, "swetouch"), t.TempDir())...)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s without the shim: %v\n%s", agent, err, out)
			}
			agentTime[1] = time.Since(start)
		}
		defer os.RemoveAll(ws)
		for _, e := range srv.Exchanges() {
			requests = append(requests, normalize(string(e.Request), ws))
		}
		return requests, ws
	}
	with, _ := session1(true)
	without, _ := session1(false)
	// a figure for docs/agents/claude.md, not a check: timing is the
	// benchmark's job
	steps := len(with)
	t.Logf("%s session: %v with the shim, %v without (ratio %.2f); %d model turns, %.0f ms added per turn",
		agent, agentTime[0].Round(time.Millisecond), agentTime[1].Round(time.Millisecond), float64(agentTime[0])/float64(agentTime[1]), steps,
		float64(agentTime[0]-agentTime[1])/float64(time.Millisecond)/float64(steps))
	if len(with) != len(without) {
		t.Fatalf("%d requests with the shim, %d without", len(with), len(without))
	}
	for i := range with {
		if with[i] != without[i] {
			t.Errorf("request %d differs:\n%s", i+1, firstDiff(with[i], without[i]))
		}
	}
}

var masks = []*regexp.Regexp{
	regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), // session and message ids
	regexp.MustCompile(`\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?`),                               // dates
	regexp.MustCompile(`swetouch-ws-\d+`),                                              // a workspace's name
	regexp.MustCompile(`"user_id":"[^"]*"`),
	regexp.MustCompile(`cc_version=[^;"]*`),
	regexp.MustCompile(`/(gemini|codex|claude)-home-\d+`),
	regexp.MustCompile(`device_id\\?":\\?"[0-9a-f]{64}`),          // Claude's install id: a fresh home makes a fresh one
	regexp.MustCompile(`/tmp/Test[^"/\\]*/\d+`),                   // t.TempDir()
	regexp.MustCompile(`_\d{13}_\d+`),                             // Gemini's call ids carry the time in ms
	regexp.MustCompile(`ses_[0-9A-Za-z]+`),                        // opencode's session ids
	regexp.MustCompile(`_unix_ms\\?":\d+`),                        // Codex's turn start time
	regexp.MustCompile(`Chunk ID: \w+|Wall time: [\d.]+ seconds`), // and its per-command output header
	regexp.MustCompile(`PGID: \d+`),                               // Gemini reports its shell's process group
	regexp.MustCompile(`Ran \d+ tests? in [\d.]+s`),               // unittest times its own run
	regexp.MustCompile(`"(timestamp|session_id|prompt_id)":"[^"]*"`),
}

func normalize(req, ws string) string {
	var v any
	if json.Unmarshal([]byte(req), &v) == nil {
		sortSkillEnums(v)
		b, _ := json.Marshal(v)
		req = string(b)
	}
	req = strings.ReplaceAll(req, ws, "WORKSPACE")
	for _, m := range masks {
		req = m.ReplaceAllString(req, "X")
	}
	req = skillBlocks.ReplaceAllStringFunc(req, sortSkills)
	return skillNames.ReplaceAllStringFunc(req, sortSkillNames)
}

// Gemini CLI lists its skills in the order a glob of their directories
// returns them, which changes from run to run with or without the shim:
// the set is compared, not the order, in the system prompt's block, in
// the activate_skill tool's description ("Available: 'a', 'b'") and in
// the enum of its name parameter.
var (
	skillBlocks = regexp.MustCompile(`\\u003cavailable_skills\\u003e.*?\\u003c/available_skills\\u003e`)
	skillEntry  = regexp.MustCompile(`\\u003cskill\\u003e.*?\\u003c/skill\\u003e`)
	skillNames  = regexp.MustCompile(`\(Available: '[^)]*'\)`)
)

func sortSkills(block string) string {
	skills := skillEntry.FindAllString(block, -1)
	sort.Strings(skills)
	return "SKILLS[" + strings.Join(skills, ",") + "]"
}

// skillParam describes activate_skill's one parameter, whose enum is
// the skills' names.
const skillParam = "The name of the skill to activate."

// sortSkillEnums sorts, in place, the enum of every schema in v that
// describes itself as activate_skill's parameter, and no other.
func sortSkillEnums(v any) {
	switch v := v.(type) {
	case map[string]any:
		if enum, ok := v["enum"].([]any); ok && v["description"] == skillParam {
			sort.Slice(enum, func(i, j int) bool { return fmt.Sprint(enum[i]) < fmt.Sprint(enum[j]) })
		}
		for _, e := range v {
			sortSkillEnums(e)
		}
	case []any:
		for _, e := range v {
			sortSkillEnums(e)
		}
	}
}

func sortSkillNames(list string) string {
	names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(list, "(Available: "), ")"), ", ")
	sort.Strings(names)
	return "(Available: " + strings.Join(names, ", ") + ")"
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-150)
	return "with:    …" + a[lo:min(len(a), i+150)] + "\nwithout: …" + b[lo:min(len(b), i+150)]
}

// TestNormalizeSkillOrder: Gemini's three skill lists compare equal in
// either order; a list with a skill missing or added still differs, and
// so does any other enum in another order.
func TestNormalizeSkillOrder(t *testing.T) {
	const (
		block = `{"system":"\u003cavailable_skills\u003e\u003cskill\u003e%s\u003c/skill\u003e\u003cskill\u003e%s\u003c/skill\u003e\u003c/available_skills\u003e"}`
		tool  = `{"description":"Activates a skill (Available: %s). Returns it."}`
		param = `{"properties":{"name":{"description":"The name of the skill to activate.","enum":[%s]}}}`
		other = `{"properties":{"mode":{"description":"How.","enum":[%s]}}}`
	)
	for _, c := range []struct {
		name      string
		a, b      string
		wantEqual bool
	}{
		{"block swapped", fmt.Sprintf(block, "a", "b"), fmt.Sprintf(block, "b", "a"), true},
		{"block changed", fmt.Sprintf(block, "a", "b"), fmt.Sprintf(block, "a", "c"), false},
		{"tool swapped", fmt.Sprintf(tool, "'skill-creator', 'antigravity-support'"), fmt.Sprintf(tool, "'antigravity-support', 'skill-creator'"), true},
		{"tool skill added", fmt.Sprintf(tool, "'skill-creator'"), fmt.Sprintf(tool, "'antigravity-support', 'skill-creator'"), false},
		{"enum swapped", fmt.Sprintf(param, `"skill-creator","antigravity-support"`), fmt.Sprintf(param, `"antigravity-support","skill-creator"`), true},
		{"enum skill added", fmt.Sprintf(param, `"skill-creator"`), fmt.Sprintf(param, `"antigravity-support","skill-creator"`), false},
		{"another enum swapped", fmt.Sprintf(other, `"a","b"`), fmt.Sprintf(other, `"b","a"`), false},
	} {
		if got := normalize(c.a, "/ws") == normalize(c.b, "/ws"); got != c.wantEqual {
			t.Errorf("%s: equal = %v, want %v:\n%s\n%s", c.name, got, c.wantEqual, normalize(c.a, "/ws"), normalize(c.b, "/ws"))
		}
	}
}
