package agents

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/swetouch/swetouch/sandbox"
)

// mini-swe-agent (PyPI mini-swe-agent 2.2.4, the version of the dev
// corpus's v2 trajectories): the scaffold of SWE-Touch's headline table.
// It runs every command with subprocess.run(shell=True), so /bin/sh
// through the shim in the sandbox sees each one; its model is any
// OpenAI-compatible endpoint through litellm's chat completions with a
// "bash" tool. It has no session to resume: a conversation's next turn
// runs its command line again with the previous turn's trajectory as its
// messages (miniSWETurns; docs/agents/mini-swe-agent.md).
func init() { Register(miniSWEAgent) }

// MiniSWETrajectory is the file its trajectory is written to in its
// scratch folder, which a run keeps in its folder (Agent.Keep) for
// replay.ImportMiniSWEAgent.
const MiniSWETrajectory = "mini-swe-agent.traj.json"

var miniSWEAgent = Agent{
	Name: "mini-swe-agent", Bin: "mini", OfflineModel: "swetouch-offline",
	// its "bash" tool takes {"command"}; opencode's tool of the same name
	// also wants a description, which mini-swe-agent ignores, so one
	// answer serves both
	Shell: []ShellTool{{Name: "bash", Args: func(c string) map[string]any { return map[string]any{"command": c, "description": "run a command"} }}},
	Command: func(l Launch, instruction, model string) []string {
		args := []string{l.Bin, "--yolo", "--exit-immediately", "--task", instruction,
			"--config", "mini.yaml", "--output", filepath.Join(l.Scratch, MiniSWETrajectory)}
		if model != "" {
			args = append(args, "--model", "openai/"+model)
		}
		// no agent.step_limit: at its own limit the mini CLI's agent asks
		// its user for a new one; swetouch's recorder ends it instead
		return args
	},
	Env: func(url, _, scratch string) []string {
		env := []string{
			"MSWEA_CONFIGURED=true",             // no first-run questions
			"MSWEA_COST_TRACKING=ignore_errors", // a model litellm has no price for
			"LITELLM_LOCAL_MODEL_COST_MAP=True", // no fetch of litellm's price list
			"PYTHONDONTWRITEBYTECODE=1", "NO_COLOR=1",
		}
		if url != "" {
			// litellm's openai/ models take their endpoint from here
			env = append(env, "OPENAI_BASE_URL="+url+"/v1", "OPENAI_API_BASE="+url+"/v1")
			if os.Getenv("OPENAI_API_KEY") == "" {
				env = append(env, "OPENAI_API_KEY=swetouch-offline")
			}
		}
		// its global configuration under a home of the run's own
		if home, err := os.MkdirTemp(scratch, "mini-home-"); err == nil {
			env = append(env, "HOME="+home, "MSWEA_GLOBAL_CONFIG_DIR="+filepath.Join(home, ".config", "mini-swe-agent"))
		}
		return env
	},
	Unreached: miniSWEUnreached,
	TurnsFor:  miniSWETurns,
	// its install, for a next turn, whose command is the entry that
	// continues it (miniSWETurns)
	Files: func(l Launch) []string {
		if l.Bin == "" {
			return nil
		}
		return sandbox.Install(l.Bin)
	},
	Keep:  func(l Launch) []string { return []string{filepath.Join(l.Scratch, MiniSWETrajectory)} },
	Login: Login{Env: []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"}},
}

// miniUnreached matches the last line of the traceback mini-swe-agent
// dies with when litellm cannot reach its model: the exception's class,
// then litellm's own qualified name for it. It has no structured output
// to read instead; the run also needs no step taken for the line to count
// (run.Config's unreached rule).
var miniUnreached = regexp.MustCompile(`^(AuthenticationError|APIConnectionError|NotFoundError|PermissionDeniedError|ServiceUnavailableError|InternalServerError|BadGatewayError|Timeout): litellm\.([A-Za-z]+Error|Timeout):`)

// miniSWEUnreached is mini-swe-agent's own report that its model could not
// be reached, from its dying traceback.
func miniSWEUnreached(line []byte) string {
	if m := miniUnreached.FindSubmatch(line); m != nil {
		return "mini-swe-agent: litellm " + string(m[1])
	}
	return ""
}
