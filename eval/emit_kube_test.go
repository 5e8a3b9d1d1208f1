package eval

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/swetouch/swetouch/policy"
	"github.com/swetouch/swetouch/task"
)

var update = flag.Bool("update", false, "rewrite the golden files of the emitted Jobs")

// TestKubeJobsGolden: the emitted Jobs, for each pod security mode and
// with the agent's install shipped, are the golden files in
// testdata/emit (go test ./eval -run TestKubeJobsGolden -update rewrites
// them), and each parses strictly as k8s.io/api's batch/v1 Job (a field
// misspelt or misplaced fails): never retried, the trial's container
// given what bwrap needs, run's flags kept, the image named by its
// template.
func TestKubeJobsGolden(t *testing.T) {
	tasks := []*task.Task{{Name: "astropy__astropy-12907", Dir: "/src/tasks/astropy__astropy-12907"}}
	cfg := Config{Tasks: tasks, Agents: []Agent{{Name: "claude"}}, Conditions: []policy.Condition{policy.Vanilla, policy.CounterEdit}, Runs: 1, Out: t.TempDir()}
	args := TrialArgs{ModelURL: "http://model.bench.svc:8080/v1", Model: "claude-sonnet-4",
		Flags: []string{"--no-sandbox=true", "--schedule=after", "--after=3", "--user-model-url=http://user.bench.svc/v1", "--user-model=judge", "--agent-timeout=30m0s"}}
	for _, tc := range []struct {
		name string
		ec   EmitConfig
	}{
		{"privileged", EmitConfig{}},
		{"userns", EmitConfig{PodSecurity: PodUserns, Namespace: "bench"}},
		{"agent-image", EmitConfig{AgentImage: "registry.example/claude-code:2.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ec := tc.ec
			ec.Image, ec.SwetouchImage, ec.PVC = "swebench/sweb.eval.x86_64.{instance_id}:latest", "registry.example/swetouch:v1", "swetouch-data"
			ta := args
			if ec.AgentImage != "" {
				ta.AgentDir = EmitAgentDir
			}
			ec.Command = ta.Command
			jobs, err := EmitJobs(cfg, ec)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := WriteJobs(dir, jobs); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, JobsFile))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "emit", tc.name+".yaml")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./eval -run TestKubeJobsGolden -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the emitted Jobs differ from %s (-update rewrites it):\n%s", golden, got)
			}
			docs := strings.Split(string(got), "\n---\n")
			if len(docs) != 2 {
				t.Fatalf("%d Jobs, want 2", len(docs))
			}
			for _, doc := range docs {
				var job batchv1.Job
				if err := yaml.UnmarshalStrict([]byte(doc), &job); err != nil {
					t.Fatalf("not a batch/v1 Job: %v", err)
				}
				checkKubeJob(t, &job, ec)
			}
		})
	}
}

// checkKubeJob checks what issue 54 asks of every trial's Job.
func checkKubeJob(t *testing.T, job *batchv1.Job, ec EmitConfig) {
	t.Helper()
	pod := job.Spec.Template.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: not a Job that is never retried", job.Name)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers", job.Name, len(pod.Containers))
	}
	trial := pod.Containers[0]
	if trial.Image != "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest" {
		t.Errorf("%s: image %q, want SWE-bench's name for the instance", job.Name, trial.Image)
	}
	argv := strings.Join(trial.Command, " ")
	for _, want := range []string{"--no-sandbox=true", "--schedule=after --after=3", "--user-model-url=http://user.bench.svc/v1 --user-model=judge", "--agent-timeout=30m0s", "--agent claude"} {
		if !strings.Contains(argv, want) {
			t.Errorf("%s: the command lacks %s: %s", job.Name, want, argv)
		}
	}
	sc := trial.SecurityContext
	switch ec.PodSecurity {
	case PodUserns:
		if pod.HostUsers == nil || *pod.HostUsers || sc == nil || sc.ProcMount == nil || *sc.ProcMount != corev1.UnmaskedProcMount || sc.Privileged != nil {
			t.Errorf("%s: userns wants hostUsers false and an unmasked /proc, not privileged: %+v %+v", job.Name, pod.HostUsers, sc)
		}
	default:
		if sc == nil || sc.Privileged == nil || !*sc.Privileged || pod.HostUsers != nil {
			t.Errorf("%s: want a privileged container: %+v", job.Name, sc)
		}
	}
	inits := map[string]corev1.Container{}
	for _, c := range pod.InitContainers {
		inits[c.Name] = c
	}
	if strings.Join(inits["swetouch"].Command, " ") != "/swetouch install "+EmitBinary {
		t.Errorf("%s: no init container installing swetouch: %+v", job.Name, pod.InitContainers)
	}
	if ec.AgentImage != "" {
		a, ok := inits["agent"]
		mounted := false
		for _, m := range trial.VolumeMounts {
			mounted = mounted || m.MountPath == EmitAgentDir
		}
		if !ok || a.Image != ec.AgentImage || !mounted || !strings.Contains(argv, "--visible="+EmitAgentDir) {
			t.Errorf("%s: the agent's install is not shipped to %s and shown to the sandbox", job.Name, EmitAgentDir)
		}
	}
}

// TestKubeStagePod: the staging pod parses strictly as a core/v1 Pod
// holding the claim at the volume's mount point.
func TestKubeStagePod(t *testing.T) {
	b, err := json.Marshal(EmitConfig{PVC: "swetouch-data", Namespace: "bench"}.StagePod())
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(b, &pod); err != nil {
		t.Fatalf("not a v1 Pod: %v", err)
	}
	c := pod.Spec.Containers
	if pod.Name != StagePodName || pod.Namespace != "bench" || len(c) != 1 || len(c[0].VolumeMounts) != 1 || c[0].VolumeMounts[0].MountPath != EmitVolume ||
		pod.Spec.Volumes[0].PersistentVolumeClaim == nil || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "swetouch-data" {
		t.Errorf("stage pod %+v", pod)
	}
}

// TestImageForSWEbench: the image template spells a SWE-bench instance's
// image as SWE-bench names it (lower case, "__" as "_1776_").
func TestImageForSWEbench(t *testing.T) {
	for tmpl, want := range map[string]string{
		"swebench/sweb.eval.x86_64.{instance_id}:latest": "swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
		"reg/{task}:base": "reg/Django__django-11099:base",
		"{image}":         "localhost/own/django-11099:env",
	} {
		if got := ImageFor(tmpl, "Django__django-11099", "localhost/own/django-11099:env"); got != want {
			t.Errorf("%s: %s, want %s", tmpl, got, want)
		}
	}
}

// TestTrialArgsInPlace: a task whose code is its image's (a SWE-bench
// task: docker_image, no repo/) runs over the image's checkout in place,
// at its workdir or SWE-bench's /testbed; a task with its own code does
// not.
func TestTrialArgsInPlace(t *testing.T) {
	for _, tc := range []struct {
		tk   *task.Task
		want string
	}{
		{&task.Task{Name: "s", Dir: "/tasks/s", Image: "img", Workdir: "/work/repo"}, "--in-place /work/repo"},
		{&task.Task{Name: "s", Dir: "/tasks/s", Image: "img"}, "--in-place /testbed"},
		{&task.Task{Name: "s", Dir: "/tasks/s", Repo: "/tasks/s/repo"}, ""},
	} {
		argv := strings.Join(TrialArgs{}.Command(tc.tk, policy.Vanilla, "claude", 0, "/out"), " ")
		if tc.want == "" && strings.Contains(argv, "--in-place") || tc.want != "" && !strings.Contains(argv, tc.want) {
			t.Errorf("%+v: %s; want %q", tc.tk, argv, tc.want)
		}
	}
}
