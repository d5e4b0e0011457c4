#!/usr/bin/env bash
# Z113 capture run ZX: multi-"node" network / communication faults made on purpose on the H200 (one batch call).
# vLLM 0.26.0 (mp backend, --nnodes / --headless, data parallel with --data-parallel-address) and plain torch 2.11.
# "Nodes" are network + UTS + mount namespaces (own hostname, /etc/hosts, /etc/resolv.conf) wired with veths;
# firewalls are iptables (Debian 1.8.9 binaries carried in fw.tgz) inside a node's namespace.
# Staging (earlier calls): p00..p06 copied to /tmp/stage/; p07 is carried in this call.
# Call: timeout -k 10 540 bash .device/Z113/run_zx.sh 2>&1 | tee $OUT/run_zx.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z113
L=$Z/out/logs   # logs live here; only logs.tar goes to $OUT
mkdir -p $Z $Z/act $L /tmp/stage /workspace/jobs
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-340}   # no job is started after t+LATEST s
LIMIT=${LIMIT:-4}       # vllm serve processes running at once (a two-node job counts 2)
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 6 | cut -c1-230 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
pack() { tar -C $Z/out -cf $OUT/logs.tar.part logs 2>/dev/null && mv $OUT/logs.tar.part $OUT/logs.tar; }
# ---------------------------------------------------------------- install vLLM
if [ ! -d $SITE/vllm ]; then
  [ -n "${FAKE:-}" ] || cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p0[0-7] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
M=/workspace/models/tiny-llama
mkdir -p $M
cat > $M/config.json <<'J'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
 "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
 "max_position_embeddings": 2048, "rms_norm_eps": 1e-05, "hidden_act": "silu", "torch_dtype": "bfloat16",
 "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": false}
J
cp $D/ddp.py /workspace/jobs/
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
# ---------------------------------------------------------------- iptables (carried): sets FW_OK
. $D/probe.sh
IPT=/opt/fw/bin/iptables
# ---------------------------------------------------------------- helpers
VS=${VS_OVERRIDE:-"python3 -m vllm.entrypoints.cli.main serve"}
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
TR=${TR_OVERRIDE:-"python3 -m torch.distributed.run"}
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
printf 'nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch cluster.local\n' > $Z/resolv.conf
# mknode KEY HOSTNAME HOSTS_LINES: a "node" = sleeper in new net+uts+mount namespaces with its own hostname,
# /etc/hosts (localhost + HOSTS_LINES) and /etc/resolv.conf (a stub resolver that is not running); echoes nothing, sets NODE
mknode() { local k=$1 hn=$2 lines=$3
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%b' "$lines" > $Z/hosts-$k
  unshare -n -u -m sh -c "hostname $hn && mount --bind $Z/hosts-$k /etc/hosts && { mount --bind $Z/resolv.conf /etc/resolv.conf || true; } && exec sleep 600" > /dev/null 2>&1 &
  NODE=$!; sleep 0.4; }
gw() { unshare -n sleep 600 > /dev/null 2>&1 & GW=$!; sleep 0.2; }   # a peer namespace at the far end of a NIC (switch/gateway)
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
# fw PID RULE...: iptables rules in that node (INPUT chain), each rule one argument
fw() { local p=$1 r; shift; for r in "$@"; do nsenter -n -t $p $IPT -A INPUT $r || echo "   iptables $r FAILED in $p"; done
  echo "   node $p: iptables -S INPUT:"; nsenter -n -t $p $IPT -S INPUT | sed 's/^/      /'; }
# pairwait P0 P1 LIMIT GRACE: wait until one node's process ends (or LIMIT s), give the other GRACE s, then SIGINT, SIGKILL
pairwait() { local p0=$1 p1=$2 lim=$3 g=${4:-25} i
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() {  # launch WEIGHT SLOT FUNC
  local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"
}
# vpair NAME LIMIT GRACE PORT CLIENT "ENV0" "ARGS0" "ENV1" "ARGS1" FIRST DELAY
#   two-node vLLM job in nodes $NA (node 0, API server) and $NB (node 1); FIRST=1 starts node 1 first, then DELAY s
#   CLIENT: zc.py actions run in node 0 against 127.0.0.1:PORT (empty: none). Per-node NCCL_HOSTID lets the two ranks
#   share the one GPU; the "# node" command lines leave it out.
vpair() { local name=$1 lim=$2 g=$3 port=$4 cl=$5 e0=$6 a0=$7 e1=$8 a1=$9 first=${10} dl=${11}
  local log=$L/$name.log p0 p1
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 ($(on $NB hostname)): \$ $e1 vllm serve $M $a1"
    echo "# node 0 ($(on $NA hostname)): \$ $e0 vllm serve $M $a0"; } >> $log
  if [ $first = 1 ]; then
    nsenter -n -u -m -t $NB env NCCL_HOSTID=node1 $e1 timeout -s INT -k 10 $((lim + g + 20)) $VS $M $a1 >> $log 2>&1 & p1=$!
    sleep $dl
    nsenter -n -u -m -t $NA env NCCL_HOSTID=node0 $e0 timeout -s INT -k 10 $((lim + g + 20)) $VS $M $a0 >> $log 2>&1 & p0=$!
  else
    nsenter -n -u -m -t $NA env NCCL_HOSTID=node0 $e0 timeout -s INT -k 10 $((lim + g + 20)) $VS $M $a0 >> $log 2>&1 & p0=$!
    sleep $dl
    nsenter -n -u -m -t $NB env NCCL_HOSTID=node1 $e1 timeout -s INT -k 10 $((lim + g + 20)) $VS $M $a1 >> $log 2>&1 & p1=$!
  fi
  if [ -n "$cl" ]; then
    nsenter -n -t $NA env ZC_TO=60 python3 $D/zc.py $port $((lim - 40)) $cl >> $log 2>&1
    sleep 2; kill -INT $p0 2>/dev/null; sleep 8; kill -INT $p1 2>/dev/null
  fi
  pairwait $p0 $p1 $lim $g
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; }
cleanup() { killns "$@"; kill -9 "$@" 2>/dev/null; }

# ================================================================ vLLM jobs (TP 2 over two nodes unless said)
TP2="$TA $KV --tensor-parallel-size 2 --nnodes 2 --master-port 29501"
# ---- V1 network: node 0 has a firewalld-style default-deny INPUT (ssh, the API port 8000, ICMP, replies; everything else
#      REJECT icmp-host-prohibited); the master port 29501 was never opened. 60 s distributed timeout.
j_v1() { local n=1 A=10.70.1.1 B=10.70.1.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  if [ $FW_OK = 1 ]; then
    fw $NA "-i lo -j ACCEPT" "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT" "-p icmp -j ACCEPT" \
      "-p tcp -m multiport --dports 22,8000 -j ACCEPT" "-j REJECT --reject-with icmp-host-prohibited"
    local name=h200-vllm026-2nodes-tp2-node0-firewall-rejects-master-port-29501
  else   # no netfilter in this kernel: node 1 keeps a stale host route to the master via a gateway that is gone
    python3 $D/netz.py route $NB $A/32 10.70.1.254
    local name=h200-vllm026-2nodes-tp2-node1-stale-host-route-to-master-via-old-gateway
  fi
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  vpair $name 150 30 8000 "" "$E VLLM_HOST_IP=$A" "$TP2 --master-addr $A --node-rank 0 --distributed-timeout-seconds 60" \
    "$E VLLM_HOST_IP=$B" "$TP2 --master-addr $A --node-rank 1 --headless --distributed-timeout-seconds 60" 1 3
  cleanup $NA $NB; }
# ---- V2 communication: node 0 has a management NIC eth0 (10.10.0.5/24, default route) besides the cluster NIC eth1;
#      its env file says GLOO_SOCKET_IFNAME=eth0 (from a single-node template); node 1 eth1. NCCL on eth1 on both.
j_v2() { local n=2 A=10.70.2.1 B=10.70.2.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n10.10.0.5\tgpu-node-0-mgmt\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n10.10.1.6\tgpu-node-1-mgmt\n"; NB=$NODE
  gw; local G0=$GW; gw; local G1=$GW
  python3 $D/netz.py veth $NA 10.10.0.5 eth0 $G0 10.10.0.1 sw0
  python3 $D/netz.py veth $NB 10.10.1.6 eth0 $G1 10.10.1.1 sw0
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  python3 $D/netz.py route $NA 0.0.0.0/0 10.10.0.1
  vpair h200-vllm026-2nodes-tp2-node0-gloo-socket-ifname-eth0-mgmt-net 140 30 8000 "" \
    "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth0 VLLM_HOST_IP=$A" "$TP2 --master-addr $A --node-rank 0" \
    "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_HOST_IP=$B" "$TP2 --master-addr $A --node-rank 1 --headless" 1 3
  cleanup $NA $NB $G0 $G1; }
# ---- V3 network: node 0's firewall opens the API port and the master port 29501 only (what the runbook lists);
#      the TCPStore works, the Gloo/NCCL connections to other ports are rejected (icmp-host-prohibited)
j_v3() { local n=3 A=10.70.3.1 B=10.70.3.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  if [ $FW_OK = 1 ]; then
    fw $NA "-i lo -j ACCEPT" "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT" "-p icmp -j ACCEPT" \
      "-p tcp -m multiport --dports 22,8000,29501 -j ACCEPT" "-j REJECT --reject-with icmp-host-prohibited"
    vpair h200-vllm026-2nodes-tp2-node0-firewall-opens-only-api-and-master-port 140 30 8000 "" \
      "$E VLLM_HOST_IP=$A" "$TP2 --master-addr $A --node-rank 0" \
      "$E VLLM_HOST_IP=$B" "$TP2 --master-addr $A --node-rank 1 --headless" 1 3
  else   # fallback: node 1's /etc/hosts (made from the inventory's first address) maps gpu-node-0 to its mgmt address
    printf '127.0.0.1\tlocalhost\n10.10.0.5\tgpu-node-0\n%s\tgpu-node-1\n' $B > $Z/hosts-${n}b
    vpair h200-vllm026-2nodes-tp2-node1-etc-hosts-master-name-to-mgmt-address 150 30 8000 "" \
      "$E VLLM_HOST_IP=$A" "$TP2 --master-addr gpu-node-0 --node-rank 0 --distributed-timeout-seconds 60" \
      "$E VLLM_HOST_IP=$B" "$TP2 --master-addr gpu-node-0 --node-rank 1 --headless --distributed-timeout-seconds 60" 1 3
  fi
  cleanup $NA $NB; }
# ---- V5 communication: NCCL_SOCKET_IFNAME=eth (a prefix: matches eth0 too) on both nodes; each node's eth0 is a
#      storage NIC (10.20.0.5 / 10.20.0.6, /24) on its own storage segment, created before eth1; Gloo on eth1
j_v5() { local n=5 A=10.70.5.1 B=10.70.5.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NB=$NODE
  gw; local G0=$GW; gw; local G1=$GW
  python3 $D/netz.py veth $NA 10.20.0.5 eth0 $G0 10.20.0.1 st0
  python3 $D/netz.py veth $NB 10.20.0.6 eth0 $G1 10.20.0.2 st0
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  vpair h200-vllm026-2nodes-tp2-nccl-socket-ifname-eth-prefix-matches-storage-eth0 ${V5LIM:-140} 30 8000 "" \
    "NCCL_SOCKET_IFNAME=eth GLOO_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN VLLM_HOST_IP=$A" "$TP2 --master-addr $A --node-rank 0" \
    "NCCL_SOCKET_IFNAME=eth GLOO_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN VLLM_HOST_IP=$B" "$TP2 --master-addr $A --node-rank 1 --headless" 1 3
  cleanup $NA $NB $G0 $G1; }
# ---- V4 DP: data parallel 2 over two nodes (head + headless engine node); node 1 was launched without
#      --data-parallel-start-rank 1 (its engine takes DP rank 0); node 1 starts first
DP="$TA $KV --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-rpc-port 13345"
j_v4() { local n=4 A=10.70.4.1 B=10.70.4.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  vpair h200-vllm026-2nodes-dp2-headless-node-without-data-parallel-start-rank 110 30 8000 "" \
    "$E VLLM_HOST_IP=$A" "$DP --data-parallel-address $A" \
    "$E VLLM_HOST_IP=$B" "$DP --data-parallel-address $A --headless" 1 25
  cleanup $NA $NB; }
# ---- H2 healthy: the same DP 2 over two nodes done right (node 1 --data-parallel-start-rank 1, starts 10 s after the
#      head); six completions spread over both engines, then SIGINT
j_h2() { local n=6 A=10.70.6.1 B=10.70.6.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  vpair h200-vllm026-2nodes-dp2-head-and-headless-engine-served-ok 170 20 8000 "ok ok ok ok ok ok get:/v1/models" \
    "$E VLLM_HOST_IP=$A" "$DP --data-parallel-address $A" \
    "$E VLLM_HOST_IP=$B" "$DP --data-parallel-address $A --data-parallel-start-rank 1 --headless" 0 10
  cleanup $NA $NB; }
# ---- H1 healthy: TP 2 over two nodes with management NICs (default route via eth0) and a firewall on node 0 that
#      trusts the cluster subnet 10.70.7.0/24; NCCL INFO (INIT,NET)
j_h1() { local n=7 A=10.70.7.1 B=10.70.7.2
  mknode ${n}a gpu-node-0 "$A\tgpu-node-0\n$B\tgpu-node-1\n10.10.0.5\tgpu-node-0-mgmt\n"; NA=$NODE
  mknode ${n}b gpu-node-1 "$A\tgpu-node-0\n$B\tgpu-node-1\n10.10.0.6\tgpu-node-1-mgmt\n"; NB=$NODE
  gw; local G0=$GW; gw; local G1=$GW
  python3 $D/netz.py veth $NA 10.10.0.5 eth0 $G0 10.10.0.1 sw0
  python3 $D/netz.py veth $NB 10.10.0.6 eth0 $G1 10.10.0.1 sw0
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  python3 $D/netz.py route $NA 0.0.0.0/0 10.10.0.1; python3 $D/netz.py route $NB 0.0.0.0/0 10.10.0.1
  [ $FW_OK = 1 ] && fw $NA "-i lo -j ACCEPT" "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT" "-p icmp -j ACCEPT" \
      "-s 10.70.7.0/24 -j ACCEPT" "-p tcp -m multiport --dports 22,8000 -j ACCEPT" "-j REJECT --reject-with icmp-host-prohibited"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"
  vpair h200-vllm026-2nodes-tp2-mgmt-nic-default-route-firewall-trusts-cluster-subnet-served-ok ${H1LIM:-170} 20 8000 "ok ok ok" \
    "$E VLLM_HOST_IP=$A" "$TP2 --master-addr $A --node-rank 0" \
    "$E VLLM_HOST_IP=$B" "$TP2 --master-addr $A --node-rank 1 --headless" 1 3
  cleanup $NA $NB $G0 $G1; }

# ================================================================ torch jobs (torch 2.11, NCCL 2.28.9)
# tpair NAME LIMIT "ENV0" "CMD0" "ENV1" "CMD1": both commands run in /workspace/jobs of their node; one log
tpair() { local name=$1 lim=$2 e0=$3 c0=$4 e1=$5 c1=$6; local log=$L/$name.log p0 p1
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 0 ($(on $NA hostname)): \$ $e0 $c0"; echo "# node 1 ($(on $NB hostname)): \$ $e1 $c1"; } >> $log
  on $NA sh -c "cd /workspace/jobs && exec env NCCL_HOSTID=node0 $e0 timeout -k 10 $lim $c0" >> $log 2>&1 & p0=$!
  on $NB sh -c "cd /workspace/jobs && exec env NCCL_HOSTID=node1 $e1 timeout -k 10 $lim $c1" >> $log 2>&1 & p1=$!
  pairwait $p0 $p1 $((lim + 15)) 30
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; }
# ---- T1 network: a freshly provisioned node 1 comes with a default-deny firewall (ssh and replies only); torchrun
#      static rendezvous on node 0 works (node 1 dials out), node 0's NCCL connections to node 1 are rejected
j_t1() { local A=10.73.1.1 B=10.73.1.2
  mknode t1a trn-node-0 "$A\ttrn-node-0\n$B\ttrn-node-1\n"; NA=$NODE
  mknode t1b trn-node-1 "$A\ttrn-node-0\n$B\ttrn-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  fw $NB "-i lo -j ACCEPT" "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT" "-p icmp -j ACCEPT" \
    "-p tcp --dport 22 -j ACCEPT" "-j REJECT --reject-with icmp-host-prohibited"
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN" C="--nnodes 2 --nproc-per-node 1 --master-addr $A --master-port 29500"
  tpair h200-2nodes-torchrun-nccl-node1-default-deny-firewall-new-node 100 \
    "$E" "$TR $C --node-rank 0 ddp.py" "$E" "$TR $C --node-rank 1 ddp.py"
  cleanup $NA $NB; }
# ---- T2 network: torchrun c10d rendezvous at node 0's IP; torchrun hands the workers rank 0's host name
#      (socket.getfqdn(): trn-node-0.cluster.local) as MASTER_ADDR; node 1 has no DNS/hosts entry for it
j_t2() { local A=10.73.2.1 B=10.73.2.2
  mknode t2a trn-node-0 "$A\ttrn-node-0.cluster.local trn-node-0\n"; NA=$NODE
  mknode t2b trn-node-1 "$B\ttrn-node-1.cluster.local trn-node-1\n"; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1
  local E="NCCL_SOCKET_IFNAME=eth1" C="--nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint $A:29400 --rdzv-id ft-run-0412"
  tpair h200-2nodes-torchrun-c10d-master-addr-rank0-fqdn-unresolvable-on-node1 110 \
    "$E" "$TR $C ddp.py" "$E" "$TR $C ddp.py"
  cleanup $NA $NB; }
# ---- T3 network: node 0 (10.71.0.0/24) and node 1 (10.72.0.0/24) in two subnets joined by a Linux router whose
#      net.ipv4.ip_forward is 0 (lost on its reboot); routes on the nodes are right; SYNs vanish at the router.
#      Workers started directly (Slurm-style env, no torchrun)
j_t3() { local A=10.71.0.1 B=10.72.0.2
  mknode t3a trn-node-0 "$A\ttrn-node-0\n$B\ttrn-node-1\n"; NA=$NODE
  mknode t3b trn-node-1 "$A\ttrn-node-0\n$B\ttrn-node-1\n"; NB=$NODE
  gw; local R=$GW
  python3 $D/netz.py veth $NA $A eth1 $R 10.71.0.254 rt0 24
  python3 $D/netz.py veth $NB $B eth1 $R 10.72.0.254 rt1 24
  python3 $D/netz.py route $NA 10.72.0.0/16 10.71.0.254; python3 $D/netz.py route $NB 10.71.0.0/16 10.72.0.254
  nsenter -n -t $R sh -c 'echo 0 > /proc/sys/net/ipv4/ip_forward; echo "   router ip_forward=$(cat /proc/sys/net/ipv4/ip_forward)"'
  echo "   node 1 routes:"; python3 $D/netz.py show $NB
  local E="MASTER_ADDR=$A MASTER_PORT=29500 WORLD_SIZE=2 LOCAL_RANK=0 NCCL_SOCKET_IFNAME=eth1"
  tpair h200-2nodes-nccl-env-init-router-between-subnets-ip-forward-off 110 \
    "$E RANK=0" "python3 ddp.py" "$E RANK=1" "python3 ddp.py"
  cleanup $NA $NB $R; }

JOBS=${JOBS:-"t2 t3 t1 v1 v2 v3 v5 v4 h2 h1"}
for j in $JOBS; do
  case $j in
    t1) [ $FW_OK = 1 ] && launch 0 t1 j_t1 || ts "== t1 skipped: no firewall" ;;
    t*) launch 0 $j j_$j ;;
    *) launch 2 $j j_$j ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack
ls -la $OUT
