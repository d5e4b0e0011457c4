#!/usr/bin/env bash
# The H200 run of the gpu_processes role (one device call). Needs the ansible-core wheels in
# .device/fix/whl. Writes everything it shows to $OUT/gpu_processes_h200.txt.
set -u
cd "$(dirname "$0")/../../../.."
exec > >(tee "$OUT/gpu_processes_h200.txt") 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .device/fix/whl/*.whl
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH LC_ALL=C.UTF-8 ANSIBLE_CONFIG=$PWD/ansible.cfg
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
here=tests/data/fix/h200
play() { echo "\$ ansible-playbook $here/gpu_processes_local.yml $*"; \
  ansible-playbook -i inventories/local "$here/gpu_processes_local.yml" "$@"; echo "rc=$?"; }
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
ansible-playbook --version | head -1
echo "== start an orphaned CUDA worker and a CUDA worker under a live parent"
python3 $here/cuda_holder.py orphan 4096 > /tmp/orphan.log 2>&1
cat /tmp/orphan.log
python3 $here/cuda_holder.py live 2048 > /tmp/live.log 2>&1 &
launcher=$!
for _ in $(seq 60); do grep -q worker /tmp/live.log && break; sleep 0.5; done
cat /tmp/live.log
orphan=$(sed -n 's/.*worker pid \([0-9]*\).*/\1/p' /tmp/orphan.log)
live=$(sed -n 's/.*worker pid \([0-9]*\).*/\1/p' /tmp/live.log)
echo "pid 1: $(cat /proc/1/comm)"
for pid in $orphan $live; do
  ps -o pid,ppid,user,comm,args -p "$pid" --no-headers
  ppid=$(awk '{print $4}' /proc/$pid/stat); echo "  parent $ppid: $(cat /proc/$ppid/comm 2>/dev/null)"
done
adopter_pid=$(awk '{print $4}' /proc/$orphan/stat)
extra=()
if [ "$adopter_pid" != 1 ]; then  # a subreaper adopted it: name it, as an operator would
  extra=(-e "{\"gpu_processes_extra_init_names\": [\"$(cat /proc/$adopter_pid/comm)\"]}")
  echo "orphan adopted by subreaper pid $adopter_pid, passing ${extra[*]}"
fi
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
nvidia-smi --query-gpu=index,memory.used --format=csv
echo "== 1. dry run, check mode (terminate opt-in given, check mode lists only)"
play --check --diff -e gpu_processes_terminate=true "${extra[@]}"
echo "== 2. run without the opt-in: lists, ends nothing"
play "${extra[@]}"
echo "== 3. run with the opt-in: ends only the stale worker, verifies memory release"
play -e gpu_processes_terminate=true -e gpu_processes_grace_seconds=5 "${extra[@]}"
echo "== after"
for pid in $orphan $live; do
  echo "pid $pid state: $(awk '{print $3}' /proc/$pid/stat 2>/dev/null || echo gone)"
done
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
nvidia-smi --query-gpu=index,memory.used --format=csv
echo "== 4. second run with the opt-in: nothing stale left (changed=0)"
play -e gpu_processes_terminate=true "${extra[@]}"
kill "$live" 2>/dev/null; wait "$launcher"
echo "== done $(date -u +%FT%TZ)"
