package agents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/event"
)

// Agent is one coding agent swetouch runs, unmodified, through the shim:
// everything it takes to start, observe and resume it, in one value made
// by the agent's own file and registered under its name (Register).
// docs/agents/<name>.md says what each one shows and hides;
// docs/adding-an-agent.md how to add one.
type Agent struct {
	Name string
	// Bin is the executable looked up on PATH, then in the install-agents
	// cache ("" for an agent that is swetouch itself: the scripted ones).
	Bin string
	// Command is the agent's command line for an instruction; model may
	// be empty (the agent's default); l.Swetouch is this tool's
	// executable, for agents whose hooks call it back.
	Command func(l Launch, instruction, model string) []string
	// Env points the agent at a model endpoint ("" keeps its own);
	// scratch is a directory of the run's own, for the agent's
	// configuration files, which the caller removes. nil: none.
	Env func(modelURL, swetouch, scratch string) []string
	// Files are host paths the sandboxed agent reads on a launch besides
	// its install (a scripted agent's plan); nil: none.
	Files func(l Launch) []string
	// Keep are files the agent writes on a launch (its own trajectory)
	// that the run keeps in its folder when the agent is done; nil: none.
	Keep func(l Launch) []string
	// Observe turns a line of the agent's output into events; ws is the
	// workspace, for making paths repo-relative. nil when the agent's
	// hooks report its tool calls instead.
	Observe func(ws string, line []byte) []event.Event
	// Own names the commands the agent runs by itself rather than for its
	// model (nil: none); the trajectory keeps them apart from its actions.
	Own func(command string) bool
	// CallsBack is set for an agent whose hooks run this tool in its
	// sandbox (Claude Code's, Codex's): they report to the session, so the
	// trial makes them a copy carrying its token. MCP relays do too.
	CallsBack bool
	// Unreached reads a line of the agent's output for its own report
	// that its model could not be reached (nil: it has none).
	Unreached func(line []byte) string
	// NativeRead is the agent's own file-reading tool as its event stream
	// or hooks name it ("" for none: it reads through its shell).
	NativeRead string
	// OfflineModel is the model asked for when an endpoint is given and
	// no model is: one the scripted server plays, where the agent's own
	// default would route through models it does not (Gemini's "auto").
	OfflineModel string
	// Turns continues the agent's session in a conversation (nil: the
	// line protocol, LineTurns).
	Turns *Turns
	// TurnsFor, when set, is Turns for one launch, for an agent whose
	// session is a file of that launch (mini-swe-agent's trajectory).
	TurnsFor func(l Launch) *Turns
	// Shell are the agent's own shell tools, which a scripted model's
	// "@shell" call becomes, the first offered (none: it has no shell
	// tool of its own).
	Shell []ShellTool
	// InstructionLast: the instruction is the command line's last
	// argument, and extra flags go before it.
	InstructionLast bool
	// MCP gives the agent MCP servers in its own configuration (nil: it
	// takes none).
	MCP func(servers []MCPServer, swetouch, scratch string, argv, env []string) ([]string, []string, error)
	// MCPConfig is the agent's own MCP configuration file, which
	// `swetouch agent-config mcp` rewrites (nil: none).
	MCPConfig *MCPConfig
	// Login is where the agent finds its user's login without an
	// endpoint (Agent.LoggedIn; zero: it needs none).
	Login Login
}

// ShellTool is an agent's shell tool as its model calls it: the tool's
// name and the arguments it takes a command line in.
type ShellTool struct {
	Name string
	Args func(command string) map[string]any
}

// MCPConfig is where an agent keeps its MCP servers, and how a
// configuration in that format is rewritten to put each stdio server
// behind the relay (WrapMCPConfig).
type MCPConfig struct {
	// Path is the file's default location.
	Path func(home string, getenv func(string) string) string
	// Wrap returns the new content and how many servers it wrapped.
	Wrap func(data []byte, swetouch string) ([]byte, int, error)
}

// Launch is what one run of an agent is given.
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
	// Task is the task's name and Plans a folder of per-task plans, for
	// agents that read one (the scripted agents).
	Task, Plans string
	// StepLimit is the agent's own limit on its model calls, where it
	// has one (0: its default); swetouch counts and ends it too.
	StepLimit int
}

// Invocation is an agent as one trial runs it: its command line and
// environment, what it must see, and how its output is read. A command
// line given after `--` is one too (Command).
type Invocation struct {
	// Name labels the agent in results ("": the command's base name).
	Name string
	// Argv is the command line; {instruction}, {workspace} and {session}
	// are substituted.
	Argv, Env []string
	// Visible are host paths the sandboxed agent needs besides its
	// install: its plan, the MCP servers' installs.
	Visible []string
	// Keep are files the agent writes that the run copies into its
	// folder when the agent is done (its own trajectory).
	Keep []string
	// Observe, Own, Unreached and Turns are the agent's (Agent).
	Observe   func(ws string, line []byte) []event.Event
	Own       func(command string) bool
	Unreached func(line []byte) string
	Turns     *Turns
	// CallsBack: something in the agent's sandbox runs this tool to
	// report to the session (its hooks, its MCP relays). Only then does
	// the trial copy this tool's 22 MB with its token (most of a
	// sandboxed run's start-up otherwise).
	CallsBack bool
}

// Command is an agent given as a command line: nothing of it is known
// but what it prints in the line protocol (LineTurns).
func Command(argv ...string) Invocation { return Invocation{Argv: argv} }

// Start is an agent's invocation for one run: its flags, then l.Args
// (before the instruction where it comes last), and the MCP servers in
// the agent's own configuration.
func (a *Agent) Start(l Launch) (Invocation, error) {
	if len(l.MCP) > 0 && a.MCP == nil {
		return Invocation{}, fmt.Errorf("%s: takes no MCP servers", a.Name)
	}
	model := l.Model
	if model == "" && l.ModelURL != "" {
		model = a.OfflineModel
	}
	argv := a.Command(l, "{instruction}", model)
	var instruction []string
	if a.InstructionLast {
		argv, instruction = slices.Clip(argv[:len(argv)-1]), slices.Clone(argv[len(argv)-1:])
	}
	argv = append(argv, l.Args...)
	inv := Invocation{Name: a.Name, Observe: a.Observe, Own: a.Own, Unreached: a.Unreached, Turns: a.Turns, CallsBack: a.CallsBack || len(l.MCP) > 0}
	if a.TurnsFor != nil {
		inv.Turns = a.TurnsFor(l)
	}
	if a.Env != nil {
		inv.Env = a.Env(l.ModelURL, l.Swetouch, l.Scratch)
	}
	if a.Files != nil {
		inv.Visible = a.Files(l)
	}
	if a.Keep != nil {
		inv.Keep = a.Keep(l)
	}
	if len(l.MCP) > 0 {
		var err error
		if argv, inv.Env, err = a.MCP(l.MCP, l.Swetouch, l.Scratch, argv, inv.Env); err != nil {
			return Invocation{}, fmt.Errorf("%s: MCP servers: %w", a.Name, err)
		}
		for _, s := range l.MCP {
			inv.Visible = append(inv.Visible, s.Install()...)
		}
	}
	inv.Argv = append(argv, instruction...)
	return inv, nil
}

// FindAgent looks for an agent's binary on PATH, then where
// scripts/install-agents.sh puts it ($SWETOUCH_AGENTS, default
// /var/cache/swetouch/agents as root, else ~/.cache/swetouch-agents).
func FindAgent(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	// npm's installs, then the Python agents' virtual environment
	dirs := []string{filepath.Join(AgentsDir(), "node_modules", ".bin"), filepath.Join(AgentsDir(), "py", "bin")}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in %s (run scripts/install-agents.sh)", name, strings.Join(dirs, " or "))
}

// AgentsDir is where scripts/install-agents.sh installs the agents and the
// npm peers the tests use: $SWETOUCH_AGENTS, else, as root,
// /var/cache/swetouch/agents, else ~/.cache/swetouch-agents. Root's home
// is 0700, which a trial's own uid (docs/trial-uid.md) cannot pass
// through to reach an agent installed there: its sandbox would fall back
// to swetouch's uid, shared with every concurrent trial.
func AgentsDir() string {
	if dir := os.Getenv("SWETOUCH_AGENTS"); dir != "" {
		return dir
	}
	if os.Geteuid() == 0 {
		return RootAgentsDir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "swetouch-agents")
}

// RootAgentsDir is where root's agents are installed (AgentsDir), in the
// 0711 folder where swetouch keeps what a trial's uid must reach.
const RootAgentsDir = "/var/cache/swetouch/agents"

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
