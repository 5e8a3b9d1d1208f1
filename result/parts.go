package result

// The parts of result.json that other packages fill in. They live here,
// and the packages that make them name them by alias, so that reading a
// result depends on the event vocabulary alone (a JSON type is not a
// reason to link the sandbox, the verifier or the user's model).

// Limits is what the sandbox's control group allowed and saw
// (sandbox.Usage).
type Limits struct {
	Pids        int64 `json:"pids_max,omitempty"`
	Memory      int64 `json:"memory_max,omitempty"`
	PidsRefused int64 `json:"pids_refused,omitempty"` // forks refused at the limit
	MemoryPeak  int64 `json:"memory_peak,omitempty"`
	OOMKills    int64 `json:"oom_kills,omitempty"`
	// Unlimited says why no limits could be set (no cgroup controller,
	// not allowed to make one): the run went on without them.
	Unlimited string `json:"unlimited,omitempty"`
	// UID is the host uid the sandbox ran as, leased for its trial alone
	// (0: swetouch's own); SharedUID says why it had none, so its per-uid
	// kernel limits were shared with every concurrent trial.
	UID       int    `json:"uid,omitempty"`
	SharedUID string `json:"uid_shared,omitempty"`
}

// Add is u and v of two sandboxes of one run (a conversation's turns).
func (u Limits) Add(v Limits) Limits {
	u.Pids, u.Memory = max(u.Pids, v.Pids), max(u.Memory, v.Memory)
	u.PidsRefused += v.PidsRefused
	u.MemoryPeak = max(u.MemoryPeak, v.MemoryPeak)
	u.OOMKills += v.OOMKills
	if u.Unlimited == "" {
		u.Unlimited = v.Unlimited
	}
	if u.UID == 0 {
		u.UID = v.UID
	}
	if u.SharedUID == "" {
		u.SharedUID = v.SharedUID
	}
	return u
}

// Canaries is what the verifier's canaries showed (task.Canaries).
type Canaries struct {
	// Runner is the test runner the canaries were written for ("" when
	// none could be: Unchecked says why).
	Runner string `json:"runner,omitempty"`
	// Placed are the files that held them, relative to the tests' copy
	// (tests/...) or the workspace's (workspace/...).
	Placed []string `json:"placed,omitempty"`
	// Tampered says how the run failed its canaries: the verdict is
	// false.
	Tampered string `json:"tampered,omitempty"`
	// Unchecked says what was not checked, and why (never silently).
	Unchecked string `json:"unchecked,omitempty"`
}

// AuditFlag is one thing the audit saw, with where (audit.Flag).
type AuditFlag struct {
	Kind   string   `json:"kind"`
	Detail []string `json:"detail"`
}

// Audit is a trial's audit (audit.Report).
type Audit struct {
	Flags []AuditFlag `json:"flags"`
	// Untrustworthy: a flagged behaviour changed the verdict (Why says
	// how); a flag alone does not make a trial untrustworthy.
	Untrustworthy bool   `json:"untrustworthy"`
	Why           string `json:"why,omitempty"`
}

// UserModelUsage is what the user's model cost a run: its calls, their
// tokens as the endpoint counted them, and the time they took
// (user.Usage).
type UserModelUsage struct {
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
}

// Listed is what came of the tests a task lists (SWE-bench's
// FAIL_TO_PASS and PASS_TO_PASS), by SWE-bench's rule: a test with no
// result has failed, a skipped one has neither passed nor failed
// (task.ListedResults).
type Listed struct {
	FailToPass int `json:"fail_to_pass"`
	PassToPass int `json:"pass_to_pass"`
	// FailToPassFailed and PassToPassFailed are the listed tests that
	// failed, errored or reported nothing.
	FailToPassFailed []string `json:"fail_to_pass_failed"`
	PassToPassFailed []string `json:"pass_to_pass_failed"`
}

// FailToPassPassed is V^F, the paper's verdict on the FAIL_TO_PASS tests
// alone: nil without per-test results.
func (l *Listed) FailToPassPassed() *bool {
	if l == nil {
		return nil
	}
	passed := len(l.FailToPassFailed) == 0
	return &passed
}
