#!/usr/bin/env bash
# End-to-end test of `pairgossip sweep` against a real SLURM (Debian's
# slurm-wlm: slurmctld and slurmd on localhost, munge for authentication).
#
#   bash scripts/slurm-e2e.sh
#
# Needs root (it installs slurm-wlm and munge with apt-get when missing, and
# runs the daemons as root). It starts munged, slurmctld and slurmd from a
# private temporary folder (no systemd, nothing under /etc), submits the job
# array written by `pairgossip sweep slurm` for examples/sweep-small.yaml,
# waits for it, merges the task databases (twice: merging is idempotent) and
# checks that the merged results are identical to a local `sweep run` of the
# same file. Every daemon is stopped by PID on exit. Bounded: each wait has
# a deadline; CI runs it under `timeout 600`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SWEEP=${SWEEP:-examples/sweep-small.yaml}
TASKS=${TASKS:-4}
JOB_DEADLINE=${JOB_DEADLINE:-300} # seconds for the array job to finish

log() { echo "== slurm-e2e: $*"; }
die() {
	echo "slurm-e2e: FAIL: $*" >&2
	exit 1
}

if [ "$(id -u)" != 0 ]; then
	die "must run as root (it installs slurm-wlm and runs slurmctld/slurmd)"
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
	! command -v sbatch >/dev/null || ! command -v mungekey >/dev/null; then
	log "installing slurm-wlm and munge"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq slurm-wlm munge >/dev/null
fi

S=$(mktemp -d /tmp/slurm-e2e.XXXXXX)
chmod 0755 "$S"
PIDS=()
cleanup() {
	local rc=$?
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	if [ "$rc" != 0 ]; then
		echo "--- logs (failure) ---" >&2
		for f in "$S"/log/*.log "$S"/results/logs/*.out; do
			[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
		done
	fi
	rm -rf "$S"
	exit "$rc"
}
trap cleanup EXIT

mkdir -p "$S/munge" "$S/key" "$S/log" "$S/state" "$S/spool" "$S/results"
chmod 0755 "$S/munge" # the socket's folder must be reachable by every client
chmod 0700 "$S/key"

log "munge"
mungekey -c -b 1024 -k "$S/key/munge.key" >/dev/null
chmod 0400 "$S/key/munge.key"
munged -F --key-file="$S/key/munge.key" --socket="$S/munge/munge.socket.2" \
	--pid-file="$S/key/munged.pid" --seed-file="$S/key/munged.seed" \
	--log-file="$S/log/munged.log" >"$S/log/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
	[ -S "$S/munge/munge.socket.2" ] && break
	sleep 0.1
done
[ -S "$S/munge/munge.socket.2" ] || die "munged did not start"

log "slurm.conf"
HOST=$(hostname -s)
# The node line as slurmd sees the hardware (RealMemory must not exceed it).
NODE=$(slurmd -C | head -n 1)
case "$NODE" in
NodeName=*) ;;
*) die "slurmd -C printed: $NODE" ;;
esac
NODE=$(echo "$NODE" | sed -E "s/^NodeName=[^ ]+/NodeName=$HOST NodeAddr=127.0.0.1/")
cat >"$S/slurm.conf" <<EOF
ClusterName=e2e
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.socket.2
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
$NODE State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"

log "slurmctld and slurmd"
slurmctld -D -i -f "$SLURM_CONF" >"$S/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -N "$HOST" -f "$SLURM_CONF" >"$S/log/slurmd.out" 2>&1 &
PIDS+=($!)
ready=
for _ in $(seq 120); do
	state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1 || true)
	case "$state" in
	idle*)
		ready=1
		break
		;;
	esac
	sleep 0.5
done
[ -n "$ready" ] || die "the node did not become idle (state: ${state:-none})"
sinfo

log "build"
CGO_ENABLED=0 go build -o "$S/pairgossip" ./cmd/pairgossip
PG="$S/pairgossip"

log "sweep slurm"
"$PG" sweep slurm "$SWEEP" --results-dir "$S/results" --tasks "$TASKS" --partition debug \
	--time 00:10:00 --cpus-per-task 1
JOB=$(sbatch --parsable "$S/results/sweep.sbatch")
JOB=${JOB%%;*}
log "submitted job array $JOB"

# Meanwhile, the same sweep locally (the reference).
t0=$(date +%s)
"$PG" sweep run "$SWEEP" --results "$S/local.db" --quiet

deadline=$(($(date +%s) + JOB_DEADLINE))
while [ -n "$(squeue -h -j "$JOB" 2>/dev/null)" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || {
		squeue -j "$JOB" >&2 || true
		scancel "$JOB" || true
		die "job $JOB did not finish within ${JOB_DEADLINE}s"
	}
	sleep 1
done
log "job $JOB finished ($(($(date +%s) - t0))s after submission)"
scontrol show job "$JOB" 2>/dev/null | grep -E 'JobId=|JobState=|ExitCode=' | paste - - - || true
n=$(ls "$S"/results/task-*.db 2>/dev/null | wc -l)
[ "$n" = "$TASKS" ] || die "expected $TASKS task databases, found $n"

log "merge (twice)"
"$PG" sweep merge "$S/results" --results "$S/merged.db"
second=$("$PG" sweep merge "$S/results" --results "$S/merged.db")
echo "$second"
echo "$second" | grep -q 'merged .*: 0 runs added' || die "the second merge added runs"

log "status and diff"
status=$("$PG" sweep status --results "$S/merged.db" --json)
echo "$status"
total=$("$PG" sweep plan "$SWEEP" --json | sed -n 's/^  "runs": \([0-9]*\),$/\1/p')
echo "$status" | grep -q "\"total\": $total," || die "merged total is not $total"
echo "$status" | grep -q "\"complete\": $total," || die "not every run is complete"
echo "$status" | grep -q '"failed": 0,' || die "failed runs"
"$PG" sweep diff "$S/local.db" "$S/merged.db" || die "merged SLURM results differ from the local sweep"
log "PASS: $total runs on SLURM in $TASKS array tasks, merged, identical to the local sweep"
