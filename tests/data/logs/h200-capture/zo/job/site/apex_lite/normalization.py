import torch
import fused_layer_norm_cuda


class FusedRMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(d))
        self.eps = eps
        fused_layer_norm_cuda.forward(d)

    def forward(self, x):
        return self.w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
