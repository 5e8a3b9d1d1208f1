package eval

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/swetouch/swetouch/internal/fastjson"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/sandbox"
	"github.com/swetouch/swetouch/task"
)

// Where an emitted trial finds things inside its container. One volume
// holds the tasks (tasks/), the scripted agents' plans (agents/), shared
// records (records.jsonl) and receives the results (results/); the
// swetouch binary is copied into its own small volume by an init
// container, so any task image works without rebuilding it.
const (
	EmitVolume  = "/swetouch"
	EmitBinary  = "/opt/swetouch/swetouch"
	EmitTasks   = EmitVolume + "/tasks"
	EmitPlans   = EmitVolume + "/agents"
	EmitResults = EmitVolume + "/results"
)

// EmitConfig says how trials become jobs for an orchestrator.
type EmitConfig struct {
	// Image is the container image a trial runs in: the task's
	// environment, a template (ImageFor: "{task}", "{instance_id}").
	Image string
	// PodSecurity is what the trial's container gets for bwrap:
	// PodPrivileged (the default, "") or PodUserns.
	PodSecurity string
	// AgentImage, if set, holds the agent's install at /agent, copied by
	// an init container to EmitAgentDir in the trial's pod (its bin/ on
	// the PATH), as the swetouch binary is.
	AgentImage string
	// SwetouchImage holds the static swetouch binary at /swetouch.
	SwetouchImage string
	// PVC is the claim mounted at EmitVolume.
	PVC       string
	Namespace string
	// Command is the trial's command line inside the container: swetouch
	// run with the task, the condition, the results folder and the agent.
	Command func(t *task.Task, c policy.Condition, agent string, run int, out string) []string
}

// Job is one emitted trial: where its result lands and its manifest.
type Job struct {
	Name      string `json:"name"`
	Agent     string `json:"agent"`
	Condition string `json:"condition"`
	Task      string `json:"task"`
	Run       int    `json:"run"`
	// Results is the trial's folder, relative to the results root (the
	// same layout eval writes, so score reads both).
	Results  string   `json:"results"`
	Command  []string `json:"command"`
	Manifest any      `json:"-"`
}

// EmitJobs turns the trials of cfg that are not yet done in cfg.Out into
// Kubernetes Jobs, one per trial, never retried (a retry would count a
// trial twice; an infrastructure failure is a null result, not a retry).
func EmitJobs(cfg Config, ec EmitConfig) ([]Job, error) {
	if ec.Image == "" || ec.SwetouchImage == "" || ec.PVC == "" {
		return nil, fmt.Errorf("emit needs the trial image, the swetouch image and the volume claim")
	}
	if ec.PodSecurity != "" && ec.PodSecurity != PodPrivileged && ec.PodSecurity != PodUserns {
		return nil, fmt.Errorf("pod security: want %s or %s, got %q", PodPrivileged, PodUserns, ec.PodSecurity)
	}
	var jobs []Job
	skip := unrecorded(cfg)
	for _, a := range cfg.Agents {
		for _, c := range cfg.Conditions {
			for _, t := range cfg.Tasks {
				if skipped(skip, c, t.Name) {
					continue
				}
				for r := 0; r < max(cfg.Runs, 1); r++ {
					rel := path.Join(a.Name, string(c), t.Name, fmt.Sprintf("run-%d", r))
					if done(filepath.Join(cfg.Out, filepath.FromSlash(rel))) {
						continue
					}
					j := Job{Name: jobName(a.Name, string(c), t.Name, r), Agent: a.Name, Condition: string(c), Task: t.Name, Run: r, Results: rel}
					j.Command = ec.Command(t, c, a.Name, r, path.Join(EmitResults, rel))
					j.Manifest = ec.job(j, ImageFor(ec.Image, t.Name, t.Image))
					jobs = append(jobs, j)
				}
			}
		}
	}
	return jobs, nil
}

var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// jobName is a DNS-1123 label, readable and unique: the trial's key
// squeezed to fit, then a short hash of the whole key.
func jobName(agent, cond, taskName string, run int) string {
	key := fmt.Sprintf("%s/%s/%s/%d", agent, cond, taskName, run)
	sum := sha256.Sum256([]byte(key))
	readable := strings.Trim(notLabel.ReplaceAllString(strings.ToLower(fmt.Sprintf("st-%s-%s-%s-%d", agent, cond, taskName, run)), "-"), "-")
	if len(readable) > 52 {
		readable = strings.TrimRight(readable[:52], "-")
	}
	return fmt.Sprintf("%s-%x", readable, sum[:4])
}

func label(s string) string {
	s = notLabel.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}

// WriteJobs writes the jobs as one stream of manifests, jobs.yaml (each
// a JSON document, which kubectl reads as it reads YAML, "---" between
// them), a kustomization.yaml naming it (kubectl apply -k DIR), and
// jobs.jsonl, the list any other orchestrator can read. One file rather
// than one per job: creating 10,000 files was most of emitting 10,000
// trials.
func WriteJobs(dir string, jobs []Job) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var stream, list bytes.Buffer
	stream.Grow(3 << 10 * len(jobs)) // a Job is about 2.8 KiB, its line 0.5
	list.Grow(1 << 9 * len(jobs))
	lines := json.NewEncoder(&list)
	for i, j := range jobs {
		if i > 0 {
			stream.WriteString("---\n")
		}
		// json.Encoder's bytes with its indent, at about half its cost
		m, err := fastjson.MarshalIndent(j.Manifest, "", "  ")
		if err != nil {
			return err
		}
		stream.Write(m)
		stream.WriteByte('\n')
		if err := lines.Encode(j); err != nil {
			return err
		}
	}
	kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - " + JobsFile + "\n"
	for name, b := range map[string][]byte{JobsFile: stream.Bytes(), "kustomization.yaml": []byte(kust), "jobs.jsonl": list.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// JobsFile is the stream of Jobs WriteJobs writes.
const JobsFile = "jobs.yaml"

// TrialArgs builds a trial's command line inside its container: swetouch
// run on the task under the volume, with the condition, the results
// folder and the agent (the scripted agent with its plan from the volume,
// or a preset agent and its model endpoint).
type TrialArgs struct {
	SharedRecords   bool // records.jsonl at the volume's root, else each task's own
	ModelURL, Model string
	Scripted        func(agent string) bool
	// Flags are run's own flags the trials were emitted with, kept
	// as given (--no-sandbox, the schedule, the user model, the limits).
	Flags []string
	// AgentDir is where the agent's install is in the pod (EmitAgentDir
	// with EmitConfig.AgentImage), shown to the sandbox; "" for none.
	AgentDir string
}

// Command is the trial's argv; it fits EmitConfig.Command.
func (ta TrialArgs) Command(t *task.Task, cond policy.Condition, agent string, run int, out string) []string {
	taskDir := path.Join(EmitTasks, filepath.Base(t.Dir))
	args := []string{EmitBinary, "run", "--task", taskDir, "--condition", string(cond), "--out", out, "--agent-name", agent}
	if t.CodeInImage() {
		// a SWE-bench task: its code is the image's checkout, which the
		// pod is the trial's alone to work over
		args = append(args, "--in-place", inPlaceDir(t))
	}
	switch {
	case cond == policy.Vanilla:
	case ta.SharedRecords:
		args = append(args, "--records", path.Join(EmitVolume, "records.jsonl"))
	default:
		args = append(args, "--records", path.Join(taskDir, "records.jsonl"))
	}
	args = append(args, ta.Flags...)
	if ta.AgentDir != "" {
		args = append(args, "--visible="+ta.AgentDir)
	}
	if ta.Scripted != nil && ta.Scripted(agent) {
		return append(args, "--", EmitBinary, "agent", "script", "--plan", path.Join(EmitPlans, t.Name+".json"), "--behaviour", agent)
	}
	args = append(args, "--agent", agent)
	if ta.ModelURL != "" {
		args = append(args, "--model-url", ta.ModelURL)
	}
	ownNetwork := slices.ContainsFunc(ta.Flags, func(f string) bool { return strings.HasPrefix(f, "--network=") })
	if _, err := sandbox.ModelNetwork(ta.ModelURL); !ownNetwork && (err != nil || ta.ModelURL == "") {
		// a provider, or a model service of the cluster's: the pod is
		// the trial's own, so its network is the trial's alone
		args = append(args, "--network", "host")
	}
	if ta.Model != "" {
		args = append(args, "--model", ta.Model)
	}
	return args
}

// inPlaceDir is where a task whose code is in its image has it: its
// workdir, else SWE-bench's /testbed.
func inPlaceDir(t *task.Task) string {
	if t.Workdir != "" {
		return t.Workdir
	}
	return "/testbed"
}
