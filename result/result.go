// Package result is result.json: what one run of an agent on a task
// came to. swetouch run writes it; score, report and eval read it from
// files, never from the hub.
package result

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/swetouch/swetouch/event"
)

// File is the result's name in a run folder.
const File = "result.json"

// Run is what result.json holds: one run of an agent on a task.
type Run struct {
	Task      string `json:"task"`
	Instance  string `json:"instance,omitempty"`
	Condition string `json:"condition"`
	Match     string `json:"match,omitempty"`
	// Delivery is the region user's delivery rule (policy.Delivery:
	// always, the paper's, or retry) when the run had a record.
	Delivery string `json:"delivery,omitempty"`
	// Schedule is the user's schedule when it is not the record's own
	// triggers: "fraction S" (S the reference run's steps) or "after N".
	Schedule  string   `json:"schedule,omitempty"`
	Agent     []string `json:"agent"`
	AgentName string   `json:"agent_name"`
	Resolved  *bool    `json:"resolved"`
	Reason    string   `json:"reason,omitempty"`
	AgentExit int      `json:"agent_exit"`
	// AgentTimedOut: the agent ran past its timeout (AgentTimeout
	// seconds) and its sandbox was killed; the verdict is the tests' on
	// what the workspace held then.
	AgentTimedOut bool `json:"agent_timed_out,omitempty"`
	// Stopped says why swetouch ended the agent before it finished on
	// its own ("step_limit": past its model calls' budget; ModelCalls is
	// how many it made); the verdict is still the workspace's. (Not
	// "ended": a conversation's ended, why it ended, sits at this level.)
	Stopped    string `json:"stopped,omitempty"`
	ModelCalls int    `json:"model_calls,omitempty"`
	// StepLimit is the model calls the agent was allowed (--step-limit,
	// or the paper's budget for a released record's benchmark); 0: none.
	StepLimit     int             `json:"step_limit,omitempty"`
	AgentTimeout  float64         `json:"agent_timeout_sec,omitempty"`
	Steps         int             `json:"steps"`
	Interventions []event.Attempt `json:"interventions"`
	Applied       int             `json:"interventions_applied"`
	Delivered     int             `json:"messages_delivered"`
	// Unconfirmed are messages handed to the agent on a channel that
	// cannot be shown to reach its model (not counted as delivered)
	Unconfirmed int `json:"messages_unconfirmed,omitempty"`
	// UserModel is what the model writing the user's messages cost.
	UserModel *UserModelUsage `json:"user_model,omitempty"`
	// ModelUsage is what the agent's own model calls cost, counted from
	// the traffic itself (run --model-upstream): apart from the user's
	// and the judge's.
	ModelUsage *ModelUsage `json:"model_usage,omitempty"`
	// Sandbox is the isolation the agent and the tests had: "bwrap" or
	// "none".
	Sandbox string `json:"sandbox"`
	// ShellsUnseen are the shells the agent could start by absolute path
	// without the shim seeing the command (/bin/sh, /bin/bash, ...): all
	// of them without a sandbox, where the shim is only first on PATH;
	// in one, only a path whose file is no shell the shim knows.
	ShellsUnseen []string `json:"shells_unseen,omitempty"`
	// NullRetries are the reasons of the earlier attempts of this trial
	// that ended with no verdict, the machine's, which eval ran again
	// (each kept beside the trial as RUN.null-K); the verdict is this
	// attempt's.
	NullRetries []string `json:"null_retries,omitempty"`
	// Network is what the sandboxed agent reached of the network: "none",
	// "relayed" (its model endpoint alone) or "host" (--network host).
	Network string `json:"network,omitempty"`
	// Limits are the agent's sandbox's pids and memory limits and what
	// they refused (a conversation's turns together), or why there were
	// none.
	Limits *Limits `json:"limits,omitempty"`
	// VerifyLeftOut are the workspace's entries the verifier's copy did
	// not hold (FIFOs, sockets, links out of the workspace), with why.
	VerifyLeftOut []string `json:"verify_left_out,omitempty"`
	// VerifyPathDropped are the empty or relative entries dropped from
	// the tests' PATH (each a lookup in the agent's copy).
	VerifyPathDropped []string `json:"verify_path_dropped,omitempty"`
	// Canaries are the verifier's canaries: the runner they were placed
	// for and where, what was not checked and why, and how a run failed
	// them (tampered: the verdict is false).
	Canaries  *Canaries `json:"canaries,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	Timings   Timings   `json:"timings"`
	// Audit is what the mechanical audit after the run flagged.
	Audit *Audit `json:"audit,omitempty"`

	// Listed is what came of the tests the task lists (SWE-bench's
	// FAIL_TO_PASS and PASS_TO_PASS), where test.sh reported per-test
	// results: how many each list holds and which failed.
	Listed *Listed `json:"listed_tests,omitempty"`

	// Conversation is a multi-turn run's turns (nil for one turn); its
	// fields sit at the top level of result.json.
	*Conversation
}

// Conversation is what a multi-turn run (UserSWE) adds to its result.
type Conversation struct {
	// PersonaChain is the user's persona for each turn, drawn once per
	// task before any agent ran: every agent on the task met this user.
	PersonaChain []string `json:"persona_chain"`
	Budget       int      `json:"budget"`
	Turns        []Turn   `json:"turns"`
	// ResolvedTurn is the turn after which every phase's acceptance
	// tests passed (null: never, within the budget).
	ResolvedTurn *int `json:"resolved_turn"`
	// WeightedTurns are the turns up to and including the resolving one
	// (all of them when never resolved), a turn without a code change
	// counting half.
	WeightedTurns float64 `json:"weighted_turns"`
	// Ended says why the conversation ended before its user ended it (the
	// agent gave no session to resume); the work is judged as it stands.
	Ended string `json:"ended,omitempty"`
	// VerdictsDisagree flags a conversation whose per-turn verdict and
	// final verifier disagree (a turn resolved that the verifier fails,
	// or a verifier's pass no turn reached): score counts it by the
	// final verdict.
	VerdictsDisagree bool `json:"verdicts_disagree,omitempty"`
	// Models are what the user's own models cost, by role (phrase, judge,
	// reviewer): apart from the agent's.
	Models map[string]UserModelUsage `json:"models,omitempty"`
	// Roles are the judge's and the reviewer's models on this task, and
	// whether the pair swapped places here (UserSWE swaps them between
	// tasks); nil without a judge.
	Roles *Roles `json:"roles,omitempty"`
}

// Roles are a conversation's judge and reviewer, by model name.
type Roles struct {
	Judge    string `json:"judge"`
	Reviewer string `json:"reviewer"`
	Swapped  bool   `json:"swapped"`
}

// Turn is one turn of a conversation: what the user said to open it (and
// as whom, from which pool items), what the agent did and replied, and
// what the tests said after it.
type Turn struct {
	Turn    int               `json:"turn"`
	Persona string            `json:"persona"`
	Phase   string            `json:"phase"`
	Edited  bool              `json:"edited"`
	Tests   map[string]string `json:"tests"`
	// Verdict is resolved, ongoing, unresolved (the budget is spent) or
	// error (the tests could not run: no verdict on the agent).
	Verdict string  `json:"verdict"`
	Weight  float64 `json:"weight"` // 1 for a turn that changed code, 0.5 for one that did not
	// Items are the pool items the user's message was made of (none for
	// the opening and a phase's opening, which are the package's own).
	Items       []string `json:"items"`
	UserMessage string   `json:"user_message"` // what opened the turn
	AgentReply  string   `json:"agent_reply"`
	// Equivalence are the equivalent-pass requests of the turn: failing
	// acceptance tests whose shipped file the agent rewrote.
	Equivalence []Equivalence `json:"equivalence,omitempty"`
	// MessageSource is who phrased UserMessage: "offline" (the
	// deterministic renderer), "llm", or "offline_fallback" (the model's
	// text failed or said what the selected items do not, FallbackWhy).
	MessageSource string `json:"message_source,omitempty"`
	// Unknown counts the agent's questions the user said it did not know.
	Unknown int `json:"unknown_questions,omitempty"`
	// UserEdits are the files the user changed during the turn (its
	// Counter-Edits); the next turn's message says so.
	UserEdits   []string `json:"user_edits,omitempty"`
	FallbackWhy string   `json:"fallback_why,omitempty"`
	// MessageReview is the reviewer's word on a model-phrased
	// UserMessage against the pool and the persona (UserSWE U11):
	// accepted, rejected or failed (either sends the offline text); ""
	// when nothing was reviewed.
	MessageReview string `json:"message_review,omitempty"`
	// Terminal is the evaluation's material the agent reached for in
	// the turn: under UserSWE's rule (U14) its use ends the session
	// there, the turn's verdict "terminated", never resolved.
	Terminal []string `json:"terminal,omitempty"`
	// Judge is the judge's decision on the turn and the reviewer's word
	// on it (nil: tests-only).
	Judge *Judgement `json:"judge,omitempty"`
}

// Judgement is a turn's model verdict: the judge's, as the reviewer
// accepted or rewrote it. The tests' verdict stands whatever it says:
// Status says whether it agreed, and a failed review closes the path to
// the tests-only verdict, flagged.
type Judgement struct {
	Verdict  string `json:"verdict,omitempty"` // completed, ongoing or unresolved
	Focus    string `json:"focus,omitempty"`   // the failing test the user speaks of next
	Guidance string `json:"guidance,omitempty"`
	Review   string `json:"review"` // accepted, rewritten, failed (the reviewer), or skipped (the judge failed)
	// Status: agrees (with the tests), overruled (by the tests),
	// judge_failed or reviewer_failed (the tests-only verdict, flagged).
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
	// GuidanceUsed says the reviewed guidance chose what the user said
	// next, where the tests were silent (no unsaid symptom of a failing
	// test: the boundaries and edge cases).
	GuidanceUsed bool `json:"guidance_used,omitempty"`
}

// Equivalence is one equivalent-pass request and its gates, in order:
// the rewritten test passes on the candidate with no regression, fails
// on the base, and keeps the behaviour the issue requires (the
// reviewer's). FailedGate is the first it failed ("" when granted or
// pending).
type Equivalence struct {
	Test string `json:"test"`
	File string `json:"file"`
	// Candidate and Base are the rewritten test's results there.
	Candidate string `json:"candidate"`
	Base      string `json:"base,omitempty"`
	// Behaviour is the reviewer's word: kept, broken, or pending (no
	// reviewer, or its call failed).
	Behaviour  string `json:"behaviour,omitempty"`
	FailedGate string `json:"failed_gate,omitempty"` // candidate, regression, base, behaviour
	Outcome    string `json:"outcome"`               // granted, refused, pending
	Why        string `json:"why,omitempty"`
}

// Timings of a run, in seconds.
type Timings struct {
	Setup  float64 `json:"setup_s"`
	Agent  float64 `json:"agent_s"`
	Verify float64 `json:"verify_s"`
	Total  float64 `json:"total_s"`
}

// Write writes the result to path, indented.
func (r *Run) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Read reads a result file.
func Read(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &r, nil
}

// Tokens are model calls and the tokens the provider counted for them:
// input (the cached part of it counted apart too) and output.
type Tokens struct {
	Calls  int `json:"calls"`
	Input  int `json:"input_tokens"`
	Cached int `json:"cached_input_tokens"`
	Output int `json:"output_tokens"`
}

// Add sums t and o.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{t.Calls + o.Calls, t.Input + o.Input, t.Cached + o.Cached, t.Output + o.Output}
}

// ModelUsage is a run's model traffic: in all and by model, what it cost
// where every model's price is known, and the cassette that replays it.
type ModelUsage struct {
	Tokens
	ByModel map[string]Tokens `json:"by_model"`
	// CostUSD is nil when a model's price is not known (--prices).
	CostUSD  *float64 `json:"cost_usd"`
	Cassette string   `json:"cassette"`
}

// TurnVerdictDisagrees reports that a conversation's per-turn verdict
// (a resolving turn or none) and its final verifier's verdict disagree.
// The turn's tests are the phases' and regression tests, the verifier's
// all the task has, so a pass of the one need not be a pass of the other.
func (r *Run) TurnVerdictDisagrees() bool {
	return r.Conversation != nil && r.Resolved != nil && *r.Resolved != (r.ResolvedTurn != nil)
}

// Terminated reports whether the conversation ended at a turn in which
// the agent used the evaluation's material (UserSWE's terminal rule): a
// failure, whatever the final verifier says.
func (c *Conversation) Terminated() bool {
	return c != nil && len(c.Turns) > 0 && c.Turns[len(c.Turns)-1].Verdict == "terminated"
}

// ShowResolved is a verdict as result.json writes it: true, false or
// null (no verdict).
func ShowResolved(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}
