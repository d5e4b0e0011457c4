# finetune_load.py: fine-tuning job that loads its base model from the node-local model cache.
import datetime, json, os, time
import torch, torch.distributed as dist
model_dir = os.environ.get("MODEL_DIR", "/local_nvme/models/llama-style-160m")
rank = int(os.environ.get("RANK", 0))
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=120))
cfg = json.load(open(os.path.join(model_dir, "config.json")))
print(f"[rank {rank}] {cfg['architectures'][0]}: hidden {cfg['hidden_size']}, layers {cfg['num_hidden_layers']}, "
      f"vocab {cfg['vocab_size']}", flush=True)
print(f"[rank {rank}] loading weights from {model_dir}/pytorch_model.bin", flush=True)
state = torch.load(os.path.join(model_dir, "pytorch_model.bin"), map_location="cpu", weights_only=True)
print(f"[rank {rank}] loaded {len(state)} tensors", flush=True)
dist.destroy_process_group()
