package eval

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/score"
	"github.com/swetouch/swetouch/task"
)

// TestEmitJobsRun: eval --emit writes one never-retried Job per trial not
// yet done, with valid unique names; run as a container would run them
// (the binary handed over by `swetouch install`, the volume at a folder),
// their commands produce the results folder score reads, with the demo's
// figures.
func TestEmitJobsRun(t *testing.T) {
	bin, err := testbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Abs(filepath.Join("..", "examples"))
	tk, err := task.Load(filepath.Join(examples, "tasks", "py-discount"))
	if err != nil {
		t.Fatal(err)
	}
	volume := t.TempDir() // what the claim holds: tasks/, agents/, results/
	for _, d := range []string{"tasks", "agents"} {
		if err := os.Symlink(filepath.Join(examples, d), filepath.Join(volume, d)); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(volume, "results")
	// one trial already finished: it is not emitted again
	doneDir := filepath.Join(results, "careful", "vanilla", "py-discount", "run-0")
	os.MkdirAll(doneDir, 0o755)
	yes := true
	b, _ := json.Marshal(map[string]any{"task": "py-discount", "condition": "vanilla", "agent_name": "careful", "resolved": &yes, "steps": 4})
	os.WriteFile(filepath.Join(doneDir, "result.json"), b, 0o644)

	cfg := Config{Tasks: []*task.Task{tk}, Agents: []Agent{{Name: "naive"}, {Name: "careful"}},
		Conditions: []policy.Condition{policy.Vanilla, policy.CounterEdit}, Runs: 1, Out: results}
	jobs, err := EmitJobs(cfg, EmitConfig{Image: "registry.example/{task}:base", SwetouchImage: "registry.example/swetouch:dev", PVC: "swetouch-data",
		Command: TrialArgs{Scripted: func(a string) bool { return a == "naive" || a == "careful" }}.Command})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3 (4 trials, 1 done)", len(jobs))
	}
	jobsDir := filepath.Join(t.TempDir(), "jobs")
	if err := WriteJobs(jobsDir, jobs); err != nil {
		t.Fatal(err)
	}
	dns := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	names := map[string]bool{}
	kust, _ := os.ReadFile(filepath.Join(jobsDir, "kustomization.yaml"))
	if !strings.Contains(string(kust), "  - "+JobsFile+"\n") {
		t.Errorf("kustomization.yaml does not name %s:\n%s", JobsFile, kust)
	}
	stream, err := os.ReadFile(filepath.Join(jobsDir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(stream), "\n---\n")
	if len(docs) != len(jobs) {
		t.Fatalf("%s holds %d documents, want %d", JobsFile, len(docs), len(jobs))
	}
	for i, j := range jobs {
		if !dns.MatchString(j.Name) || len(j.Name) > 63 || names[j.Name] {
			t.Errorf("job name %q: not a unique DNS-1123 label", j.Name)
		}
		names[j.Name] = true
		var m struct {
			Kind string
			Spec struct {
				BackoffLimit *int `json:"backoffLimit"`
				Template     struct {
					Spec struct {
						RestartPolicy  string `json:"restartPolicy"`
						InitContainers []struct {
							Image   string
							Command []string
						} `json:"initContainers"`
						Containers []struct {
							Image        string
							Command      []string
							VolumeMounts []struct{ MountPath string } `json:"volumeMounts"`
						}
						Volumes []struct {
							PersistentVolumeClaim *struct{ ClaimName string } `json:"persistentVolumeClaim"`
						}
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(docs[i]), &m); err != nil {
			t.Fatalf("%s: %v", j.Name, err)
		}
		ps := m.Spec.Template.Spec
		switch {
		case m.Kind != "Job" || m.Spec.BackoffLimit == nil || *m.Spec.BackoffLimit != 0 || ps.RestartPolicy != "Never":
			t.Errorf("%s: want a Job never retried", j.Name)
		case len(ps.InitContainers) != 1 || strings.Join(ps.InitContainers[0].Command, " ") != "/swetouch install "+EmitBinary:
			t.Errorf("%s: init container %+v", j.Name, ps.InitContainers)
		case len(ps.Containers) != 1 || ps.Containers[0].Image != "registry.example/py-discount:base" || len(ps.Containers[0].VolumeMounts) != 2:
			t.Errorf("%s: container %+v", j.Name, ps.Containers)
		case len(ps.Volumes) != 2 || ps.Volumes[1].PersistentVolumeClaim == nil || ps.Volumes[1].PersistentVolumeClaim.ClaimName != "swetouch-data":
			t.Errorf("%s: volumes %+v", j.Name, ps.Volumes)
		}
	}

	// the init container's step, then each job's command as its container
	// runs it, with the mount points mapped to folders here
	optDir := t.TempDir()
	installed := filepath.Join(optDir, filepath.Base(EmitBinary))
	if out, err := exec.Command(filepath.Join(bin, "swetouch"), "install", installed).CombinedOutput(); err != nil {
		t.Fatalf("swetouch install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(optDir, "swetouch-shim")); err != nil {
		t.Errorf("install did not hand over the shim beside the binary: %v", err)
	}
	local := func(arg string) string {
		if arg == EmitBinary {
			return installed
		}
		if rest, ok := strings.CutPrefix(arg, EmitVolume+"/"); ok {
			return filepath.Join(volume, rest)
		}
		return arg
	}
	for _, j := range jobs {
		var argv []string
		for _, a := range j.Command {
			argv = append(argv, local(a))
		}
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("job %s: %v\n%s", j.Name, err, out)
		}
	}
	trials, err := score.Load(results)
	if err != nil || len(trials) != 4 {
		t.Fatalf("%d trials in the results (%v), want 4", len(trials), err)
	}
	for _, r := range score.Summarize(trials) {
		want := 1
		if r.Agent == "naive" && r.Condition == "counter-edit" {
			want = 0
		}
		if r.Resolved != want || r.Trials != 1 {
			t.Errorf("%s/%s: %d of %d resolved, want %d", r.Agent, r.Condition, r.Resolved, r.Trials, want)
		}
	}
}

// TestTrialArgsNetwork: a preset trial whose model is not on the pod's
// loopback (a provider, a service of the cluster's) gets the pod's
// network, the trial's own; one on the loopback is relayed.
func TestTrialArgsNetwork(t *testing.T) {
	tk := &task.Task{Name: "t", Dir: "/tasks/t"}
	for url, host := range map[string]bool{"": true, "http://model.svc:8000/v1": true, "http://127.0.0.1:8000/v1": false} {
		argv := strings.Join(TrialArgs{ModelURL: url}.Command(tk, policy.Vanilla, "claude", 0, "/out"), " ")
		if strings.Contains(argv, "--network host") != host {
			t.Errorf("model %q: %s; want --network host %v", url, argv, host)
		}
		// a --network eval was given is the trial's, not overridden
		argv = strings.Join(TrialArgs{ModelURL: url, Flags: []string{"--network=none"}}.Command(tk, policy.Vanilla, "claude", 0, "/out"), " ")
		if strings.Contains(argv, "--network host") || !strings.Contains(argv, "--network=none") {
			t.Errorf("model %q, --network=none given: %s", url, argv)
		}
	}
}
