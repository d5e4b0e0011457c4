#!/usr/bin/env bash
# Device run 6: assemble and install vLLM 0.26.0 (+ small deps), make a tiny Llama config,
# then roles/vllm_smoke against real `vllm serve` at TP=1 (dummy weights, no tokenizer).
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8
W=/tmp/vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl
cat /tmp/part0 /tmp/part1 /tmp/part2 /tmp/part3 /tmp/part4 > $W
echo "adb1e4c9b46d0dfdb094121ae5aad670a42412dd813ed4e5db069ed6a15006de  $W" | sha256sum -c || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $W .device/validate/whl/*.whl || exit 4
export PYTHONPATH=/tmp/ans PATH=/tmp/ans/bin:$PATH ANSIBLE_CONFIG=$PWD/ansible.cfg
R=/tmp/res6; mkdir -p $R
python3 -c "from transformers import LlamaConfig; LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512).save_pretrained('/tmp/tiny')" || exit 5
nvidia-smi --query-gpu=index,memory.used --format=csv > $R/memory-before.csv
/usr/bin/time -f "vllm playbook %e s" ansible-playbook -i localhost, -c local \
  -e "ansible_python_interpreter=$(command -v python3)" playbooks/validate_vllm.yml \
  -e vllm_smoke_model=/tmp/tiny -e vllm_smoke_tp=1 -e vllm_smoke_pythonpath=/tmp/site \
  -e "vllm_smoke_extra_args='--load-format dummy --skip-tokenizer-init --gpu-memory-utilization 0.2 --enforce-eager'" \
  -e '{"vllm_smoke_env": {"NCCL_DEBUG": "INFO", "VLLM_USE_FLASHINFER_SAMPLER": "0"}}' \
  -e vllm_smoke_output_dir=$R/vllm > $R/ansible-vllm.log 2>&1; echo "vllm rc $?"
nvidia-smi --query-gpu=index,memory.used --format=csv > $R/memory-after.csv
nvidia-smi --query-compute-apps=pid,used_memory --format=csv > $R/apps-after.csv
cat $R/memory-after.csv $R/apps-after.csv; tail -n 15 $R/ansible-vllm.log
python3 -c "import json;d=json.load(open('$R/vllm/localhost/result.json'));r=d['runs'][0];print({k:r.get(k) for k in ('ready','ready_s','ranks','models','memory_loaded_mib','teardown')});print(r.get('completion'));print([(x['prompt_len'],x['status']) for x in r.get('ramp',[])], r.get('past_limit',{}).get('status'))"
tar czf $OUT/h200-validate-run6.tgz -C $R .
