# small model whose compiled block is called with the layer's name (per-layer scaling table)
import time
import torch

torch.manual_seed(0)
dev = torch.device("cuda", 0)
NAMES = [f"decoder.layers.{i}" for i in range(12)]
SCALE = {n: 1.0 / (1 + i) ** 0.5 for i, n in enumerate(NAMES)}
W = {n: torch.nn.Parameter(torch.randn(512, 512, device=dev) * 0.02) for n in NAMES}

@torch.compile
def block(x, w, name):
    h = torch.nn.functional.gelu(x @ w) * SCALE[name]
    return x + h

opt = torch.optim.AdamW(W.values(), lr=1e-3)
t0 = time.time()
for step in range(4):
    x = torch.randn(64, 512, device=dev)
    for n in NAMES:
        x = block(x, W[n], n)
    loss = x.pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.5f} ({time.time() - t0:.1f}s)", flush=True)
print("training done", flush=True)
