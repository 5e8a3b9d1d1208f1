package agents

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// Preset runs a closed agent, unmodified, through the shim: its own
// non-interactive flags, its model endpoint, and the reader of its event
// stream for what the shell cannot see. docs/agents/<name>.md says what
// each one shows and hides.
type Preset struct {
	Name string
	// Command is the agent's command line for an instruction; model may
	// be empty (the agent's default); swetouch is this tool's executable,
	// for agents whose hooks call it back.
	Command func(bin, instruction, model, swetouch string) []string
	// Env points the agent at a model endpoint ("" keeps its own);
	// swetouch is this tool's executable, for agents that call it back
	// through their hooks; scratch is a directory of the run's own, for
	// the agent's configuration files, which the caller removes.
	Env func(modelURL, swetouch, scratch string) []string
	// Observe turns a line of the agent's output into events; ws is the
	// workspace, for making paths repo-relative. nil when the agent's
	// hooks report its tool calls instead.
	Observe func(ws string, line []byte) []event.Event
	// Own names the commands the agent runs by itself rather than for its
	// model (nil: none); the trajectory keeps them apart from its actions.
	Own func(command string) bool
	// Unreached reads a line of the agent's output for its own report
	// that its model could not be reached (run.Config.Unreached).
	Unreached func(line []byte) string
	// OfflineModel is the model asked for when an endpoint is given and
	// no model is: one the scripted server plays, where the agent's own
	// default would route through models it does not (Gemini's "auto").
	OfflineModel string
	// Turns continues the agent's session in a conversation (nil: the
	// preset cannot hold one).
	Turns *Turns
	// instructionLast: the instruction is the command line's last
	// argument, and extra flags go before it.
	instructionLast bool
	// mcp gives the agent MCP servers in its own configuration
	mcp func(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error)
	bin string
	// login is where the agent finds its user's login without an
	// endpoint (Login)
	login login
}

// Launch is what one run of a preset is given.
type Launch struct {
	Bin      string // the agent's binary
	ModelURL string // the endpoint ("" keeps the agent's own)
	Model    string // the model ("" for OfflineModel with an endpoint, else the agent's default)
	Swetouch string // this tool's executable, for hooks and relays
	Scratch  string // a folder of the run's own, for homes and configuration
	Args     []string
	// MCP are servers the agent is given, each behind `swetouch mcp`,
	// with their tools allowed in the agent's own terms
	MCP []MCPServer
}

// Started is how a preset's run starts.
type Started struct {
	Argv, Env []string
	// Visible are host paths the sandboxed agent needs besides its own
	// install: the MCP servers' installs
	Visible []string
}

// Start is a preset's command line and environment for one run: the
// preset's flags, then l.Args (before the instruction where it comes
// last), and the MCP servers in the agent's own configuration.
func (p *Preset) Start(l Launch) (Started, error) {
	model := l.Model
	if model == "" && l.ModelURL != "" {
		model = p.OfflineModel
	}
	argv := p.Command(l.Bin, "{instruction}", model, l.Swetouch)
	var instruction []string
	if p.instructionLast {
		argv, instruction = slices.Clip(argv[:len(argv)-1]), slices.Clone(argv[len(argv)-1:])
	}
	argv = append(argv, l.Args...)
	st := Started{Env: p.Env(l.ModelURL, l.Swetouch, l.Scratch)}
	if len(l.MCP) > 0 {
		var err error
		if argv, st.Env, err = p.mcp(l.MCP, l.Swetouch, l.Scratch, argv, st.Env); err != nil {
			return Started{}, fmt.Errorf("%s: MCP servers: %w", p.Name, err)
		}
		for _, s := range l.MCP {
			st.Visible = append(st.Visible, s.Install()...)
		}
	}
	st.Argv = append(argv, instruction...)
	return st, nil
}

// Presets are the agents swetouch knows how to run.

// presets are the agents swetouch knows how to run, one file each.
var presets = map[string]Preset{"claude": claudePreset, "codex": codexPreset, "gemini": geminiPreset, "opencode": opencodePreset}

// ErrNoPreset is the error for an agent name without a preset.
var ErrNoPreset = errors.New("no preset")

// PresetFor returns the preset for an agent name and the path of its
// binary: on PATH, else in the install-agents cache.
func PresetFor(name string) (*Preset, string, error) {
	p, ok := presets[name]
	if !ok {
		return nil, "", fmt.Errorf("%w for agent %q (have %s)", ErrNoPreset, name, strings.Join(PresetNames(), ", "))
	}
	bin, err := FindAgent(p.bin)
	return &p, bin, err
}

// PresetNames are the agents with a preset, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FindAgent looks for an agent's binary on PATH, then where
// scripts/install-agents.sh puts it ($SWETOUCH_AGENTS, default
// ~/.cache/swetouch-agents).
func FindAgent(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join(AgentsDir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found on PATH or in %s (run scripts/install-agents.sh)", name, filepath.Dir(p))
	}
	return p, nil
}

// AgentsDir is where scripts/install-agents.sh installs the agents and the
// npm peers the tests use: $SWETOUCH_AGENTS, else ~/.cache/swetouch-agents.
func AgentsDir() string {
	if dir := os.Getenv("SWETOUCH_AGENTS"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "swetouch-agents")
}

// repoPath makes an agent's path repo-relative when it is in the
// workspace.
func repoPath(ws, p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if rel, err := filepath.Rel(ws, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		if rel, err := filepath.Rel(real, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// shellQuote quotes a path for a hook command line.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// pagedScope is the lines a paged read tool returns: from the 0-based
// offset, limit lines (the whole file when neither is given).
func pagedScope(path string, offset *int, limit int) event.Scope {
	if offset == nil && limit <= 0 {
		return event.FileScope(path)
	}
	start := 1
	if offset != nil {
		start = *offset + 1
	}
	if limit <= 0 {
		limit = 2000
	}
	return event.LineScope(path, start, start+limit-1)
}

// orText is s trimmed, or d when that is empty.
func orText(s, d string) string {
	if s = strings.TrimSpace(s); s == "" {
		return d
	}
	return s
}
