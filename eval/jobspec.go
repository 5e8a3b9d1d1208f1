package eval

import (
	"fmt"
	"path"
	"strings"
)

// The batch/v1 Job's fields an emitted trial uses, typed here rather
// than taken from k8s.io/api, which would add its module graph to the
// binary for a dozen structs; the golden tests parse every emitted Job
// with k8s.io/api's own types, strictly, so a field misspelt here fails
// there.
type (
	k8sJob struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   k8sMeta    `json:"metadata"`
		Spec       k8sJobSpec `json:"spec"`
	}
	k8sMeta struct {
		Name        string            `json:"name,omitempty"`
		Namespace   string            `json:"namespace,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
	k8sJobSpec struct {
		BackoffLimit            int         `json:"backoffLimit"`
		TTLSecondsAfterFinished int         `json:"ttlSecondsAfterFinished"`
		Template                k8sTemplate `json:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta    `json:"metadata"`
		Spec     k8sPodSpec `json:"spec"`
	}
	k8sPodSpec struct {
		RestartPolicy  string         `json:"restartPolicy"`
		HostUsers      *bool          `json:"hostUsers,omitempty"`
		InitContainers []k8sContainer `json:"initContainers"`
		Containers     []k8sContainer `json:"containers"`
		Volumes        []k8sVolume    `json:"volumes"`
	}
	k8sContainer struct {
		Name            string              `json:"name"`
		Image           string              `json:"image"`
		ImagePullPolicy string              `json:"imagePullPolicy"`
		Command         []string            `json:"command"`
		Env             []k8sEnv            `json:"env,omitempty"`
		SecurityContext *k8sSecurityContext `json:"securityContext,omitempty"`
		VolumeMounts    []k8sMount          `json:"volumeMounts"`
	}
	k8sEnv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	k8sSecurityContext struct {
		Privileged     *bool              `json:"privileged,omitempty"`
		ProcMount      string             `json:"procMount,omitempty"`
		SeccompProfile *k8sSeccompProfile `json:"seccompProfile,omitempty"`
		AppArmor       *k8sSeccompProfile `json:"appArmorProfile,omitempty"`
	}
	k8sSeccompProfile struct {
		Type string `json:"type"`
	}
	k8sMount struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
	}
	k8sVolume struct {
		Name     string    `json:"name"`
		EmptyDir *struct{} `json:"emptyDir,omitempty"`
		PVC      *k8sClaim `json:"persistentVolumeClaim,omitempty"`
	}
	k8sClaim struct {
		ClaimName string `json:"claimName"`
	}
)

// Pod security modes: what the trial's container is given so that
// bubblewrap can make its sandbox inside it (docs/scale.md).
const (
	// PodPrivileged: a privileged container. bwrap mounts a fresh /proc
	// for the agent's pid namespace, which the kernel refuses under the
	// runtime's masked /proc; privileged is the one form every runtime
	// runs. The pod is the trial's alone, and the agent inside it is
	// still in bwrap's sandbox.
	PodPrivileged = "privileged"
	// PodUserns: the pod in a user namespace of its own (hostUsers:
	// false) with an unmasked /proc, so root in the pod is nobody on the
	// node; needs a runtime with user namespaces (containerd 2, CRI-O)
	// and Kubernetes' UserNamespacesSupport.
	PodUserns = "userns"
)

// pullPolicy is every emitted container's: a trial's image is the task's
// environment, fixed for the evaluation, and SWE-bench names its images
// ":latest", for which Kubernetes' default is to ask the registry again
// for every pod (10,000 trials, 10,000 registry checks, and an image
// pushed mid-evaluation would split it); a node pulls it once, and a
// cluster loaded with images of its own (scripts/k8s-local.sh) pulls
// none.
const pullPolicy = "IfNotPresent"

// EmitAgentDir is where an emitted trial finds the agent's install
// (Node and its CLI, mini-swe-agent) that --agent-image ships.
const EmitAgentDir = "/opt/swetouch-agent"

// ImageFor is the trial's image: the template with "{task}" the task's
// name and "{instance_id}" the name as SWE-bench's images spell it
// (lower case, "__" written "_1776_", as in
// swebench/sweb.eval.x86_64.{instance_id}:latest).
// "{image}" is the task's own image (task.toml's [environment]
// docker_image), for tasks that name theirs.
func ImageFor(template, taskName, taskImage string) string {
	id := strings.ReplaceAll(strings.ToLower(taskName), "__", "_1776_")
	return strings.NewReplacer("{task}", taskName, "{instance_id}", id, "{image}", taskImage).Replace(template)
}

// job is the batch/v1 Job for one trial.
func (ec EmitConfig) job(j Job, image string) k8sJob {
	labels := map[string]string{
		"app.kubernetes.io/name":      "swetouch",
		"app.kubernetes.io/component": "trial",
		"swetouch.dev/agent":          label(j.Agent),
		"swetouch.dev/condition":      label(j.Condition),
		"swetouch.dev/task":           label(j.Task),
		"swetouch.dev/run":            fmt.Sprint(j.Run),
	}
	binMount := k8sMount{Name: "swetouch-bin", MountPath: path.Dir(EmitBinary)}
	trial := k8sContainer{Name: "trial", Image: image, Command: j.Command,
		VolumeMounts: []k8sMount{binMount, {Name: "data", MountPath: EmitVolume}}}
	pod := k8sPodSpec{RestartPolicy: "Never",
		InitContainers: []k8sContainer{{Name: "swetouch", Image: ec.SwetouchImage,
			Command: []string{"/swetouch", "install", EmitBinary}, VolumeMounts: []k8sMount{binMount}}},
		Volumes: []k8sVolume{{Name: "swetouch-bin", EmptyDir: &struct{}{}}, {Name: "data", PVC: &k8sClaim{ClaimName: ec.PVC}}}}
	if ec.AgentImage != "" {
		agentMount := k8sMount{Name: "agent", MountPath: EmitAgentDir}
		pod.InitContainers = append(pod.InitContainers, k8sContainer{Name: "agent", Image: ec.AgentImage,
			Command: []string{"cp", "-a", "/agent/.", EmitAgentDir + "/"}, VolumeMounts: []k8sMount{agentMount}})
		pod.Volumes = append(pod.Volumes, k8sVolume{Name: "agent", EmptyDir: &struct{}{}})
		trial.VolumeMounts = append(trial.VolumeMounts, agentMount)
		trial.Env = []k8sEnv{{Name: "PATH", Value: EmitAgentDir + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}}
	}
	yes, no := true, false
	switch ec.PodSecurity {
	case PodUserns:
		pod.HostUsers = &no
		trial.SecurityContext = &k8sSecurityContext{ProcMount: "Unmasked",
			SeccompProfile: &k8sSeccompProfile{Type: "Unconfined"}, AppArmor: &k8sSeccompProfile{Type: "Unconfined"}}
	default:
		trial.SecurityContext = &k8sSecurityContext{Privileged: &yes}
	}
	pod.Containers = []k8sContainer{trial}
	for _, cs := range [][]k8sContainer{pod.InitContainers, pod.Containers} {
		for i := range cs {
			cs[i].ImagePullPolicy = pullPolicy
		}
	}
	return k8sJob{APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sMeta{Name: j.Name, Namespace: ec.Namespace, Labels: labels,
			Annotations: map[string]string{"swetouch.dev/results": j.Results}},
		Spec: k8sJobSpec{BackoffLimit: 0, TTLSecondsAfterFinished: 86400,
			Template: k8sTemplate{Metadata: k8sMeta{Labels: labels}, Spec: pod}}}
}

// StagePod is a pod that holds the claim at EmitVolume and waits, for
// kubectl cp to put tasks/, agents/ and records.jsonl on the volume
// before the Jobs run and to take results/ off it after (busybox: tar
// for kubectl cp, sleep to wait); docs/scale.md has the sequence.
func (ec EmitConfig) StagePod() any {
	type pod struct {
		APIVersion string  `json:"apiVersion"`
		Kind       string  `json:"kind"`
		Metadata   k8sMeta `json:"metadata"`
		Spec       struct {
			RestartPolicy string         `json:"restartPolicy"`
			Containers    []k8sContainer `json:"containers"`
			Volumes       []k8sVolume    `json:"volumes"`
		} `json:"spec"`
	}
	p := pod{APIVersion: "v1", Kind: "Pod", Metadata: k8sMeta{Name: StagePodName, Namespace: ec.Namespace,
		Labels: map[string]string{"app.kubernetes.io/name": "swetouch", "app.kubernetes.io/component": "stage"}}}
	p.Spec.RestartPolicy = "Never"
	p.Spec.Containers = []k8sContainer{{Name: "stage", Image: "busybox:1.36", ImagePullPolicy: pullPolicy, Command: []string{"sleep", "86400"},
		VolumeMounts: []k8sMount{{Name: "data", MountPath: EmitVolume}}}}
	p.Spec.Volumes = []k8sVolume{{Name: "data", PVC: &k8sClaim{ClaimName: ec.PVC}}}
	return p
}

// StagePodName is the staging pod's name.
const StagePodName = "swetouch-stage"
