// fused_sgd_kernel.cu: momentum SGD over one rank's shard of the flat fp32 master buffer (ZeRO-1).
// Vectorised: four floats per thread through float4 loads/stores, scalar tail.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void momentum_sgd_vec4(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                                  int64_t n4, float lr, float mu, float wd) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 pv = reinterpret_cast<float4*>(p)[i];
  const float4 gv = reinterpret_cast<const float4*>(g)[i];
  float4 mv = reinterpret_cast<float4*>(m)[i];
  mv.x = mu * mv.x + gv.x + wd * pv.x; pv.x -= lr * mv.x;
  mv.y = mu * mv.y + gv.y + wd * pv.y; pv.y -= lr * mv.y;
  mv.z = mu * mv.z + gv.z + wd * pv.z; pv.z -= lr * mv.z;
  mv.w = mu * mv.w + gv.w + wd * pv.w; pv.w -= lr * mv.w;
  reinterpret_cast<float4*>(p)[i] = pv;
  reinterpret_cast<float4*>(m)[i] = mv;
}

__global__ void momentum_sgd_tail(float* p, const float* g, float* m, int64_t start, int64_t n,
                                  float lr, float mu, float wd) {
  int64_t i = start + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  m[i] = mu * m[i] + g[i] + wd * p[i];
  p[i] -= lr * m[i];
}

void launch_momentum_sgd(float* p, const float* g, float* m, int64_t n, float lr, float mu, float wd,
                         cudaStream_t stream) {
  const int threads = 256;
  int64_t n4 = n / 4;
  if (n4 > 0)
    momentum_sgd_vec4<<<(unsigned)((n4 + threads - 1) / threads), threads, 0, stream>>>(p, g, m, n4, lr, mu, wd);
  if (n > n4 * 4)
    momentum_sgd_tail<<<1, threads, 0, stream>>>(p, g, m, n4 * 4, n, lr, mu, wd);
}
