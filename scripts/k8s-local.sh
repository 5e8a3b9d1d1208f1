#!/usr/bin/env bash
# k8s-local.sh: a single-node Kubernetes on loopback, built from the Go module
# proxy, for the real-cluster test (e2e/kube) and by hand.
#
#   k8s-local.sh build            build the binaries once (cached by version)
#   k8s-local.sh up               build if needed, start; prints the KUBECONFIG path
#   k8s-local.sh load IMAGE...    copy podman images into the cluster's containerd
#   k8s-local.sh down             stop everything, remove the state: no leftovers
#   k8s-local.sh status           exit 0 when the API server answers and the node is ready
#   k8s-local.sh built            exit 0 when the binaries are built
#   k8s-local.sh env              KUBECONFIG= and SWETOUCH_K8S_HOST= (the host on the pods' bridge)
#
# The control plane (kube-apiserver, kube-controller-manager, kube-scheduler)
# and the kubelet are built CGO_ENABLED=0 from k8s.io/kubernetes at
# $K8S_VERSION with its k8s.io/* staging modules replaced by their published
# v0.x twins (the monorepo's own go.mod points them at ./staging, which a
# module dependency cannot use). etcd, containerd, runc and the CNI plugins are
# Debian's. The sandbox ("pause") image is a static Go binary in a FROM scratch
# image, so nothing is pulled from a registry. Everything listens on 127.0.0.1
# but the kubelet, which Kubernetes refuses to give a loopback node address:
# it listens on the host's address on the pods' own bridge, which is also
# where pods reach the host. The state lives in $SWETOUCH_K8S_STATE.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
CACHE="${SWETOUCH_K8S_CACHE:-$HOME/.cache/swetouch-k8s}/$K8S_VERSION"
STATE="${SWETOUCH_K8S_STATE:-/run/swetouch-k8s}"
NODE="${SWETOUCH_K8S_NODE:-swetouch-node}"
# ports away from the well-known ones, so a cluster elsewhere on the host does not clash
ETCD_PORT=23790 ETCD_PEER_PORT=23800 API_PORT=16443 KUBELET_PORT=10350
POD_CIDR=10.245.0.0/24 SERVICE_CIDR=10.96.0.0/24 BRIDGE=swtk0
PAUSE_IMAGE=localhost/swetouch-pause:1
BINS=(kube-apiserver kube-controller-manager kube-scheduler kubelet)

log() { echo "k8s-local: $*" >&2; }
die() { log "$*"; exit 1; }

built() {
	local b
	for b in "${BINS[@]}" pause; do [[ -x $CACHE/bin/$b ]] || return 1; done
}

# build compiles the four binaries and the pause binary into $CACHE/bin, in a
# temporary module that is thrown away (no vendored tree anywhere).
build() {
	built && return 0
	command -v go >/dev/null || die "go is needed to build Kubernetes"
	local tmp
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' RETURN
	log "building Kubernetes $K8S_VERSION in $tmp (about 11 min on 2 idle cores)"
	local modfile
	modfile="$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
	[[ -r $modfile ]] || die "could not download k8s.io/kubernetes@$K8S_VERSION's go.mod"
	{
		echo "module swetouch.local/k8sbuild"
		echo
		echo "go $(sed -n 's/^go //p' "$modfile")"
		echo
		echo "require k8s.io/kubernetes $K8S_VERSION"
		echo
		echo "replace ("
		sed -n 's|^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/.*|\t\1 => \1 '"$STAGING_VERSION"'|p' "$modfile"
		echo ")"
	} >"$tmp/go.mod"
	local pkgs=() b
	for b in "${BINS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
	(
		cd "$tmp"
		export CGO_ENABLED=0 GOFLAGS=-mod=mod
		go get "${pkgs[@]/%/@$K8S_VERSION}" >/dev/null
		mkdir -p "$tmp/bin"
		# the version the binaries report (the node's, the API server's): a
		# module build has no git tree to stamp it from
		local minor=${K8S_VERSION#v1.}
		local v=k8s.io/component-base/version
		nice -n 10 go build -trimpath -o "$tmp/bin/" -ldflags="-s -w -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 \
			-X $v.gitMinor=${minor%%.*} -X $v.gitTreeState=clean" "${pkgs[@]}"
	)
	mkdir -p "$tmp/pause"
	cat >"$tmp/pause/main.go" <<-'EOF'
		// pause holds a pod's namespaces: it waits for a signal and reaps orphans.
		package main

		import (
			"os"
			"os/signal"
			"syscall"
		)

		func main() {
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
			for s := range sig {
				if s != syscall.SIGCHLD {
					return
				}
				for {
					if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
						break
					}
				}
			}
		}
	EOF
	(cd "$tmp/pause" && printf 'module pause\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/bin/pause" .)
	mkdir -p "$CACHE"
	rm -rf "$CACHE/bin.new"
	mv "$tmp/bin" "$CACHE/bin.new"
	rm -rf "$CACHE/bin"
	mv "$CACHE/bin.new" "$CACHE/bin"
	log "built into $CACHE/bin"
}

# certs writes the cluster's CA and the certificates signed by it: the API
# server's (for 127.0.0.1), one client identity in system:masters that
# the controllers, the scheduler, the kubelet and the tests share (a
# throwaway cluster on loopback: one identity is enough), the kubelet's
# serving certificate, and the service accounts' signing key.
certs() {
	local d=$STATE/pki
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=swetouch-k8s-ca \
		-keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
	sign() { # name subject altnames usage
		openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$d/$1.key" -out "$d/$1.csr" 2>/dev/null
		printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$3" "$4" >"$d/$1.ext"
		openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 30 \
			-extfile "$d/$1.ext" -out "$d/$1.crt" 2>/dev/null
	}
	sign apiserver /CN=kube-apiserver "IP:127.0.0.1,IP:${SERVICE_CIDR%.0/24}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc" serverAuth
	sign admin "/O=system:masters/CN=system:node:$NODE" "DNS:$NODE" clientAuth
	sign kubelet "/CN=$NODE" "IP:127.0.0.1,IP:$(gateway),DNS:$NODE,DNS:localhost" serverAuth
	openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
	openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
	cat >"$STATE/kubeconfig" <<-KC
		apiVersion: v1
		kind: Config
		clusters:
		- name: swetouch
		  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$d/ca.crt"}
		users:
		- name: admin
		  user: {client-certificate: "$d/admin.crt", client-key: "$d/admin.key"}
		contexts:
		- name: swetouch
		  context: {cluster: swetouch, user: admin, namespace: default}
		current-context: swetouch
	KC
}

# start runs a daemon in the background, its output in $STATE/log/NAME.log
# and its pid in $STATE/pid/NAME, so down stops exactly what up started.
start() {
	local name=$1
	shift
	mkdir -p "$STATE/log" "$STATE/pid"
	setsid "$@" >"$STATE/log/$name.log" 2>&1 </dev/null &
	echo $! >"$STATE/pid/$name"
}

# waitfor runs its command until it succeeds, at most $1 seconds, saying
# which log to read when it does not.
waitfor() {
	local secs=$1 what=$2 logname=$3
	shift 3
	local end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= end)); then
			log "$what did not come up within ${secs}s; the end of $STATE/log/$logname.log:"
			tail -n 30 "$STATE/log/$logname.log" >&2 || true
			return 1
		fi
		if [[ -f $STATE/pid/$logname ]] && ! kill -0 "$(cat "$STATE/pid/$logname")" 2>/dev/null; then
			log "$what exited; the end of $STATE/log/$logname.log:"
			tail -n 30 "$STATE/log/$logname.log" >&2 || true
			return 1
		fi
		sleep 0.5
	done
}

kc() { kubectl --kubeconfig "$STATE/kubeconfig" "$@"; }

api_ready() { kc get --raw /readyz; }
node_ready() {
	[[ $(kc get node "$NODE" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') == True ]]
}
sa_ready() { kc get serviceaccount default -n default; }

need_packages() {
	local missing=()
	command -v etcd >/dev/null || missing+=(etcd-server)
	command -v containerd >/dev/null || missing+=(containerd)
	command -v runc >/dev/null || missing+=(runc)
	[[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
	command -v openssl >/dev/null || missing+=(openssl)
	command -v podman >/dev/null || missing+=(podman)
	command -v kubectl >/dev/null || missing+=(kubectl)
	((${#missing[@]} == 0)) && return 0
	log "installing ${missing[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

containerd_config() {
	mkdir -p "$STATE/containerd" "$STATE/cni/net.d"
	cat >"$STATE/containerd/config.toml" <<-TOML
		version = 2
		root = "$STATE/containerd/root"
		state = "$STATE/containerd/state"
		[grpc]
		  address = "$STATE/containerd.sock"
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "$PAUSE_IMAGE"
		  # the kubelet sets oom_score_adj for its pods; a root whose own
		  # adjustment is raised may not lower theirs below it
		  restrict_oom_score_adj = true
		  [plugins."io.containerd.grpc.v1.cri".containerd]
		    snapshotter = "overlayfs"
		    default_runtime_name = "runc"
		    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		      runtime_type = "io.containerd.runc.v2"
		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "/usr/lib/cni"
		    conf_dir = "$STATE/cni/net.d"
	TOML
	# pods on a bridge of their own; the host is its gateway, which a
	# test's server listens on (nothing leaves the machine: no masquerade)
	cat >"$STATE/cni/net.d/10-swetouch.conflist" <<-JSON
		{"cniVersion": "0.4.0", "name": "swetouch", "plugins": [
		  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false,
		   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$(gateway)"}]],
		            "dataDir": "$STATE/cni/ipam"}},
		  {"type": "loopback"}]}
	JSON
}

gateway() { echo "${POD_CIDR%.0/24}.1"; }

# bridge makes the pods' bridge before any pod, so the host's address on
# it exists from the start (a server can listen there at once).
bridge() {
	ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
	ip addr show dev "$BRIDGE" | grep -q "inet $(gateway)/" || ip addr add "$(gateway)/24" dev "$BRIDGE"
	ip link set "$BRIDGE" up
}

kubelet_config() {
	mkdir -p "$STATE/kubelet" "$STATE/pod-logs"
	cat >"$STATE/kubelet.yaml" <<-YAML
		apiVersion: kubelet.config.k8s.io/v1beta1
		kind: KubeletConfiguration
		address: $(gateway)
		port: $KUBELET_PORT
		readOnlyPort: 0
		healthzPort: 0
		authentication:
		  anonymous: {enabled: false}
		  webhook: {enabled: false}
		  x509: {clientCAFile: "$STATE/pki/ca.crt"}
		authorization: {mode: AlwaysAllow}
		tlsCertFile: "$STATE/pki/kubelet.crt"
		tlsPrivateKeyFile: "$STATE/pki/kubelet.key"
		containerRuntimeEndpoint: "unix://$STATE/containerd.sock"
		cgroupDriver: cgroupfs
		cgroupsPerQOS: false
		enforceNodeAllocatable: []
		failSwapOn: false
		podLogsDir: "$STATE/pod-logs"
		# a shared development machine: never evict a trial for the disk
		evictionHard: {"memory.available": "100Mi", "nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"}
		imageGCHighThresholdPercent: 100
		imageGCLowThresholdPercent: 99
		localStorageCapacityIsolation: false
		resolvConf: /etc/resolv.conf
		maxPods: 40
		serializeImagePulls: false
	YAML
}

pause_image() {
	ctr -a "$STATE/containerd.sock" -n k8s.io images ls -q | grep -qx "$PAUSE_IMAGE" && return 0
	local tmp
	tmp="$(mktemp -d)"
	cp "$CACHE/bin/pause" "$tmp/pause"
	printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' >"$tmp/Containerfile"
	podman build -q -t "$PAUSE_IMAGE" -f "$tmp/Containerfile" "$tmp" >/dev/null
	rm -rf "$tmp"
	cmd_load "$PAUSE_IMAGE"
}

cmd_up() {
	need_packages
	build
	if [[ -f $STATE/kubeconfig ]] && api_ready && node_ready; then
		echo "$STATE/kubeconfig"
		return 0
	fi
	[[ -d $STATE ]] && cmd_down
	mkdir -p "$STATE"
	certs
	containerd_config
	kubelet_config
	bridge
	local b=$CACHE/bin
	start etcd etcd --name swetouch --data-dir "$STATE/etcd" \
		--listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
		--listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-cluster "swetouch=http://127.0.0.1:$ETCD_PEER_PORT"
	start containerd containerd --config "$STATE/containerd/config.toml"
	local p=$STATE/pki
	start kube-apiserver "$b/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
		--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
		--tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" --client-ca-file "$p/ca.crt" \
		--kubelet-client-certificate "$p/admin.crt" --kubelet-client-key "$p/admin.key" \
		--service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
		--service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range "$SERVICE_CIDR" \
		--authorization-mode Node,RBAC --allow-privileged=true --endpoint-reconciler-type none \
		--kubelet-preferred-address-types InternalIP
	waitfor 60 etcd etcd ctr -a "$STATE/containerd.sock" version
	waitfor 120 "the API server" kube-apiserver api_ready
	start kube-controller-manager "$b/kube-controller-manager" --kubeconfig "$STATE/kubeconfig" \
		--leader-elect=false --secure-port 0 --service-account-private-key-file "$p/sa.key" \
		--root-ca-file "$p/ca.crt" --use-service-account-credentials=false
	start kube-scheduler "$b/kube-scheduler" --kubeconfig "$STATE/kubeconfig" --leader-elect=false --secure-port 0
	pause_image
	start kubelet "$b/kubelet" --kubeconfig "$STATE/kubeconfig" --config "$STATE/kubelet.yaml" \
		--root-dir "$STATE/kubelet" --hostname-override "$NODE" --node-ip "$(gateway)" --cert-dir "$STATE/pki"
	waitfor 120 "the node" kubelet node_ready
	waitfor 60 "the default service account" kube-controller-manager sa_ready
	printf 'KUBECONFIG=%s\nSWETOUCH_K8S_HOST=%s\n' "$STATE/kubeconfig" "$(gateway)" >"$STATE/env"
	echo "$STATE/kubeconfig"
}

# load copies images from podman's store into the cluster's containerd,
# under the same names (the Jobs then run them without a registry); an
# image already loaded with the same id is not copied again.
cmd_load() {
	(($# > 0)) || die "load: name the images"
	[[ -S $STATE/containerd.sock ]] || die "load: the cluster is not up"
	local img id mark
	mkdir -p "$STATE/loaded"
	for img in "$@"; do
		id=$(podman image inspect --format '{{.Id}}' "$img" 2>/dev/null) || die "load: podman has no image $img"
		mark=$STATE/loaded/$(printf %s "$img" | tr '/:' '__')
		[[ -f $mark && $(cat "$mark") == "$id" ]] && continue
		podman save --format docker-archive "$img" |
			ctr -a "$STATE/containerd.sock" -n k8s.io images import - >/dev/null
		echo "$id" >"$mark"
	done
}

# down stops what up started, in reverse, and removes the state: the
# pods' containers and mounts, the bridge, the files.
cmd_down() {
	local name pid
	for name in kubelet kube-scheduler kube-controller-manager kube-apiserver; do
		[[ -f $STATE/pid/$name ]] || continue
		pid=$(cat "$STATE/pid/$name")
		kill "$pid" 2>/dev/null && while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
	done
	if [[ -S $STATE/containerd.sock ]]; then
		local c=(ctr -a "$STATE/containerd.sock" -n k8s.io)
		"${c[@]}" tasks ls -q 2>/dev/null | while read -r id; do "${c[@]}" tasks kill -s KILL "$id" 2>/dev/null || true; done
		"${c[@]}" tasks ls -q 2>/dev/null | while read -r id; do "${c[@]}" tasks rm -f "$id" >/dev/null 2>&1 || true; done
		"${c[@]}" containers ls -q 2>/dev/null | xargs -r "${c[@]}" containers rm >/dev/null 2>&1 || true
	fi
	for name in containerd etcd; do
		[[ -f $STATE/pid/$name ]] || continue
		pid=$(cat "$STATE/pid/$name")
		kill "$pid" 2>/dev/null && while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
	done
	# containerd's shims outlive it; theirs are the processes under our root
	pgrep -f "containerd-shim-runc-v2 .*-address $STATE/containerd.sock" | xargs -r kill -9 2>/dev/null || true
	# what the kubelet and containerd mounted under the state (volumes,
	# the pods' /dev/shm, the rootfs overlays), innermost first
	if [[ -d $STATE ]]; then
		awk -v s="$STATE" '$2 == s || index($2, s "/") == 1 {print $2}' /proc/self/mounts | sort -r |
			while read -r m; do umount -l "$m" 2>/dev/null || true; done
	fi
	ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
	rm -rf "$STATE"
}

cmd_status() { [[ -f $STATE/kubeconfig ]] && api_ready && node_ready; }

case "${1:-}" in
build) build ;;
built) built ;;
env) cat "$STATE/env" ;;
up | down | status) "cmd_$1" ;;
load) shift && cmd_load "$@" ;;
*) die "usage: $0 build|up|load IMAGE...|down|status" ;;
esac
