# shellcheck shell=bash
# Sourced by local-cluster.sh: brings up and tears down a one-node Slurm cluster that lives
# entirely under $CLUSTER_DIR (own munge key and socket, own ports, own state), so that it
# neither needs systemd nor disturbs a Slurm or munge already installed on the machine.

# Ports away from the defaults (6817/6818) so a site's own slurmctld/slurmd may keep running.
: "${SLURMCTLD_PORT:=16817}"
: "${SLURMD_PORT:=16818}"

CLUSTER_PIDS=()

cluster_install() {
    local missing=()
    command -v munged >/dev/null || missing+=(munge)
    command -v slurmctld >/dev/null || missing+=(slurmctld)
    command -v slurmd >/dev/null || missing+=(slurmd)
    command -v sbatch >/dev/null || missing+=(slurm-client)
    # local-cluster.sh compares the results with python3's csv and json modules.
    command -v python3 >/dev/null || missing+=(python3)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "== apt-get install ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # policy-rc.d or no systemd: the packages' own services do not start; we start ours.
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

cluster_write_config() {
    local host node
    host=$(hostname -s)
    # slurmd -C prints this machine's node line (CPUs, sockets, memory) and an UpTime line.
    node=$(slurmd -C | grep '^NodeName=')
    mkdir -p "$CLUSTER_DIR"/{munge,state,spool,log}
    # munged wants its socket directory searchable by all, and nothing writable by others.
    chmod 711 "$CLUSTER_DIR/munge"
    head -c 1024 /dev/urandom >"$CLUSTER_DIR/munge/munge.key"
    chmod 400 "$CLUSTER_DIR/munge/munge.key"
    cat >"$CLUSTER_DIR/slurm.conf" <<CONF
ClusterName=sudoku-bench-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$SLURMCTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CLUSTER_DIR/munge/munge.socket
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd.pid
SlurmctldLogFile=$CLUSTER_DIR/log/slurmctld.log
SlurmdLogFile=$CLUSTER_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# Finished jobs stay visible to scontrol long enough for the caller to read their state.
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$CLUSTER_DIR/slurm.conf"
}

cluster_start() {
    munged --key-file="$CLUSTER_DIR/munge/munge.key" \
        --socket="$CLUSTER_DIR/munge/munge.socket" \
        --pid-file="$CLUSTER_DIR/munge/munged.pid" \
        --log-file="$CLUSTER_DIR/log/munged.log" \
        --seed-file="$CLUSTER_DIR/munge/munged.seed" \
        --foreground --force >>"$CLUSTER_DIR/log/munged.out" 2>&1 &
    CLUSTER_PIDS+=($!)
    # -i: ignore any saved state; -D: stay in the foreground so we hold the pid to stop.
    slurmctld -D -i -f "$SLURM_CONF" >>"$CLUSTER_DIR/log/slurmctld.out" 2>&1 &
    CLUSTER_PIDS+=($!)
    slurmd -D -f "$SLURM_CONF" >>"$CLUSTER_DIR/log/slurmd.out" 2>&1 &
    CLUSTER_PIDS+=($!)
    local host
    host=$(hostname -s)
    for _ in $(seq 1 60); do
        if [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; then
            echo "== node $host idle ($(sinfo -V))"
            return 0
        fi
        sleep 1
    done
    echo "local-cluster: node $host did not become idle in 60 s; logs follow" >&2
    tail -n 20 "$CLUSTER_DIR"/log/* >&2 || true
    return 1
}

cluster_stop() {
    local pid
    # Jobs outlive slurmd (slurmstepd runs them): end them first. Every job on this private
    # cluster is ours.
    if [ ${#CLUSTER_PIDS[@]} -gt 0 ] && [ -n "$(squeue -h 2>/dev/null)" ]; then
        scancel --full --partition=local 2>/dev/null || true
        for _ in $(seq 1 15); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    for pid in "${CLUSTER_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${CLUSTER_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    CLUSTER_PIDS=()
}

# job_state JOBID: the states of all of a job's tasks, one per line (an array has one per task).
job_state() {
    scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}

# wait_job JOBID TIMEOUT_SECONDS: 0 when every task COMPLETED, 1 on any other end or timeout.
wait_job() {
    local id=$1 limit=$2 states
    for _ in $(seq 1 "$limit"); do
        states=$(job_state "$id")
        if [ -n "$states" ] && ! grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' <<<"$states"; then
            if grep -qv '^COMPLETED$' <<<"$states"; then
                echo "local-cluster: job $id ended with: $(sort <<<"$states" | uniq -c | tr '\n' ' ')" >&2
                return 1
            fi
            return 0
        fi
        sleep 1
    done
    echo "local-cluster: job $id not done after $limit s: $(tr '\n' ' ' <<<"$states")" >&2
    return 1
}
