# rollout.py: sampling rollouts of a small policy LM for an RL / eval pipeline; sampling settings from YAML.
import sys, time, yaml, torch, torch.nn as nn
cfg = yaml.safe_load(open(sys.argv[1]))
s = cfg["sampling"]
print(f"{time.strftime('%H:%M:%S')} rollout config: {cfg}", flush=True)
torch.manual_seed(cfg["seed"])
V, D = cfg["model"]["vocab_size"], cfg["model"]["hidden_size"]
policy = nn.Sequential(nn.Embedding(V, D), nn.Linear(D, D), nn.GELU(), nn.Linear(D, V)).cuda().eval()


@torch.no_grad()
def generate(prompts, max_new_tokens):
    seq = prompts
    for _ in range(max_new_tokens):
        logits = policy(seq)[:, -1, :].float()
        logits = logits / s["temperature"]
        if s.get("top_k"):
            kth = torch.topk(logits, s["top_k"]).values[:, -1, None]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1)
        seq = torch.cat([seq, nxt], dim=1)
    return seq


for batch in range(cfg["num_batches"]):
    prompts = torch.randint(0, V, (cfg["batch_size"], 32), device="cuda")
    out = generate(prompts, s["max_new_tokens"])
    print(f"batch {batch}: generated {out.shape[1] - 32} tokens x {out.shape[0]} rollouts", flush=True)
print("rollouts done", flush=True)
