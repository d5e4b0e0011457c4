# mk_old_ckpt.py CKPT_DIR STEP [VOCAB]: the checkpoint the previous run of data_train.py left (its model still had a
# learned position embedding and no final norm), with 'latest' pointing at it.
import os, sys
import torch
import torch.nn as nn

d, step = sys.argv[1], int(sys.argv[2])
vocab = int(sys.argv[3]) if len(sys.argv) > 3 else 8192
D = 256
torch.manual_seed(1)
m = nn.ModuleDict({"embed": nn.Embedding(vocab, D), "pos_embed": nn.Embedding(512, D),
                   "blocks": nn.ModuleList(nn.ModuleDict({"norm": nn.LayerNorm(D), "up": nn.Linear(D, 4 * D),
                                                          "down": nn.Linear(4 * D, D)}) for _ in range(4)),
                   "head": nn.Linear(D, vocab, bias=False)})
opt = torch.optim.AdamW(m.parameters(), lr=3e-4)
os.makedirs(d, exist_ok=True)
name = f"step-{step:06d}.pt"
torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "step": step}, os.path.join(d, name))
with open(os.path.join(d, "latest"), "w") as f:
    f.write(name + "\n")
print(f"wrote {d}/{name} ({len(m.state_dict())} tensors) and latest")
