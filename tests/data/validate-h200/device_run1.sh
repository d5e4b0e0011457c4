#!/usr/bin/env bash
# Device run 1 (1x H200): nccl-tests built and run by roles/nccl_tests (twice: build, then
# cache hit), then roles/allreduce (torch.distributed, NCCL) over the same sizes. Ansible is
# carried as wheels. Also stages the last vLLM wheel part in /tmp for run 6.
set -u
cp .device/validate/p5/part4 /tmp/
export LC_ALL=C.UTF-8 LANG=C.UTF-8
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/ans .device/validate/ans/*.whl || exit 3
export PYTHONPATH=/tmp/ans PATH=/tmp/ans/bin:$PATH ANSIBLE_CONFIG=$PWD/ansible.cfg
R=/tmp/res1; mkdir -p $R
nvidia-smi -L > $R/nvidia-smi-L.txt
python3 -c "import torch;print(torch.__version__, torch.cuda.nccl.version())" > $R/torch.txt 2>&1
EX=(-i localhost, -c local -e "ansible_python_interpreter=$(command -v python3)")
NCCL=(-e "nccl_tests_source_tarball=$PWD/.device/validate/nccl-tests.tar.gz"
      -e "nccl_tests_gencode=-gencode=arch=compute_90,code=sm_90" -e nccl_tests_make_jobs=16
      -e nccl_tests_min_bytes=8M -e nccl_tests_max_bytes=1G)
/usr/bin/time -f "nccl playbook %e s" ansible-playbook "${EX[@]}" playbooks/validate_nccl.yml "${NCCL[@]}" \
  -e nccl_tests_output_dir=$R/nccl > $R/ansible-nccl.log 2>&1; echo "nccl rc $?"
/usr/bin/time -f "nccl playbook (cached) %e s" ansible-playbook "${EX[@]}" playbooks/validate_nccl.yml "${NCCL[@]}" \
  -e nccl_tests_output_dir=$R/nccl-cached > $R/ansible-nccl-cached.log 2>&1; echo "nccl cached rc $?"
/usr/bin/time -f "allreduce playbook %e s" ansible-playbook "${EX[@]}" playbooks/validate_allreduce.yml \
  -e allreduce_min_bytes=8388608 -e allreduce_max_bytes=1073741824 \
  -e allreduce_output_dir=$R/allreduce > $R/ansible-allreduce.log 2>&1; echo "allreduce rc $?"
tail -n 8 $R/nccl/localhost/all_reduce_perf-1.txt; cat $R/nccl-cached/localhost/meta.json
python3 -c "import json;print(json.load(open('$R/allreduce/localhost/run.json'))['stdout'])"
tail -n 30 $R/ansible-nccl.log | grep -v '^$' | tail -12
tar czf $OUT/h200-validate-run1.tgz -C $R .
