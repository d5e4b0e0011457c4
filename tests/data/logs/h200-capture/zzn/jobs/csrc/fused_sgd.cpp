// fused_sgd.cpp: Python binding of the fused ZeRO-1 momentum SGD step (see fused_sgd_kernel.cu).
#include <torch/extension.h>
#include <cuda_runtime_api.h>

void launch_momentum_sgd(float* p, const float* g, float* m, int64_t n, float lr, float mu, float wd,
                         cudaStream_t stream);

void fused_momentum_sgd_(torch::Tensor p, torch::Tensor g, torch::Tensor m, double lr, double mu, double wd) {
  TORCH_CHECK(p.is_cuda() && g.is_cuda() && m.is_cuda(), "fused_momentum_sgd_: CUDA tensors expected");
  TORCH_CHECK(p.scalar_type() == at::kFloat && g.scalar_type() == at::kFloat && m.scalar_type() == at::kFloat,
              "fused_momentum_sgd_: fp32 master weights, grads and momentum expected");
  TORCH_CHECK(p.is_contiguous() && g.is_contiguous() && m.is_contiguous(), "fused_momentum_sgd_: contiguous tensors expected");
  TORCH_CHECK(p.numel() == g.numel() && p.numel() == m.numel(), "fused_momentum_sgd_: shard sizes differ");
  launch_momentum_sgd(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(), p.numel(), (float)lr,
                      (float)mu, (float)wd, /*stream=*/0);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("fused_momentum_sgd_", &fused_momentum_sgd_, "ZeRO-1 shard update: momentum SGD, float4-vectorised");
}
