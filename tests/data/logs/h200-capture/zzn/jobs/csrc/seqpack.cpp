// seqpack.cpp: pack variable-length token sequences into fixed-length rows (first fit, in order),
// returning the packed ids, the position ids and the number of rows used.
#include <torch/extension.h>
#include <vector>

std::vector<torch::Tensor> pack(torch::Tensor tokens, torch::Tensor lengths, int64_t row_len, int64_t pad_id) {
  TORCH_CHECK(tokens.dim() == 1 && lengths.dim() == 1, "pack: 1-D tokens and lengths expected");
  auto tok = tokens.contiguous().to(torch::kLong);
  auto len = lengths.contiguous().to(torch::kLong);
  const int64_t* t = tok.data_ptr<int64_t>();
  const int64_t* l = len.data_ptr<int64_t>();
  int64_t n = len.numel(), total = tok.numel();
  int64_t rows = (total + row_len - 1) / row_len + n;
  auto out = torch::full({rows, row_len}, pad_id, torch::kLong);
  auto pos = torch::zeros({rows, row_len}, torch::kLong);
  int64_t* o = out.data_ptr<int64_t>();
  int64_t* ps = pos.data_ptr<int64_t>();
  int64_t r = 0, c = 0, off = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = std::min(l[i], row_len);
    if (c + k > row_len) { ++r; c = 0; }
    for (int64_t j = 0; j < k; ++j) { o[r * row_len + c + j] = t[off + j]; ps[r * row_len + c + j] = j; }
    c += k; off += l[i];
  }
  int64_t used = r + (c > 0 ? 1 : 0);
  return {out.narrow(0, 0, used), pos.narrow(0, 0, used)};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("pack", &pack, "pack token sequences into rows of row_len");
}
