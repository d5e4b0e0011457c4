# lstm_train.py: time-series forecaster (2-layer LSTM) trained on one GPU; logs the software stack first.
import time, torch, torch.nn as nn
print(f"{time.strftime('%H:%M:%S')} torch {torch.__version__} | CUDA {torch.version.cuda} | "
      f"cuDNN {torch.backends.cudnn.version()} | GPU {torch.cuda.get_device_name(0)}", flush=True)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=32, hidden_size=256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


model = Forecaster().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(50):
    x = torch.randn(64, 96, 32, device="cuda"); y = x[:, -1, :1] * 0.5
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print("done", flush=True)
