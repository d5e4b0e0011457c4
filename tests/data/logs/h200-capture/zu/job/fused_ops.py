# fused_ops.py: Triton fused GELU (erf form), vendored from an older training repo
import torch
import triton
import triton.language as tl

@triton.jit
def _gelu_fwd(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.libdevice.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)

def fused_gelu(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_fwd[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
