// Additive (Bahdanau) attention scores and their gradients, fused: one pass over the
// [B,T,J,A] products that the tensor version (punct/models/layers.py) makes in eight.
//   E[b,t,j] = sum_a w[a] * tanh(P[b,j,a] + Q[b,t,a])
// Built at first use by punct.models.fastops (torch.utils.cpp_extension); the inner loops
// are vectorized by the compiler (glibc's libmvec supplies the vector tanh).
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <vector>

static void check(const torch::Tensor& x, const char* name, int64_t dim) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat32 && x.is_contiguous() && x.dim() == dim,
              name, " must be a contiguous float32 CPU tensor of ", dim, " dimensions");
}

torch::Tensor scores_forward(torch::Tensor P, torch::Tensor Q, torch::Tensor w) {
  check(P, "P", 3); check(Q, "Q", 3); check(w, "w", 1);
  const int64_t B = P.size(0), J = P.size(1), A = P.size(2), T = Q.size(1);
  TORCH_CHECK(Q.size(0) == B && Q.size(2) == A && w.size(0) == A, "P, Q and w do not agree in shape");
  auto E = torch::empty({B, T, J}, P.options());
  const float* p = P.data_ptr<float>();
  const float* q = Q.data_ptr<float>();
  const float* wa = w.data_ptr<float>();
  float* e = E.data_ptr<float>();
  at::parallel_for(0, B * T, 1, [&](int64_t begin, int64_t end) {
    for (int64_t bt = begin; bt < end; ++bt) {  // one query row: all its memory positions
      const float* qr = q + bt * A;
      const float* pb = p + (bt / T) * J * A;
      for (int64_t j = 0; j < J; ++j) {
        const float* pr = pb + j * A;
        float acc = 0.f;
#pragma omp simd reduction(+ : acc)
        for (int64_t a = 0; a < A; ++a) acc += wa[a] * std::tanh(pr[a] + qr[a]);
        e[bt * J + j] = acc;
      }
    }
  });
  return E;
}

std::vector<torch::Tensor> scores_backward(torch::Tensor P, torch::Tensor Q, torch::Tensor w, torch::Tensor G) {
  check(P, "P", 3); check(Q, "Q", 3); check(w, "w", 1); check(G, "G", 3);
  const int64_t B = P.size(0), J = P.size(1), A = P.size(2), T = Q.size(1);
  auto dP = torch::zeros_like(P);
  auto dQ = torch::zeros_like(Q);
  auto dw_rows = torch::zeros({B, A}, P.options());  // one row per batch row: no shared writes
  const float* p = P.data_ptr<float>();
  const float* q = Q.data_ptr<float>();
  const float* wa = w.data_ptr<float>();
  const float* g = G.data_ptr<float>();
  float* dp = dP.data_ptr<float>();
  float* dq = dQ.data_ptr<float>();
  float* dwr = dw_rows.data_ptr<float>();
  at::parallel_for(0, B, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {  // a batch row owns dP[b], dQ[b] and dw_rows[b]
      float* dwb = dwr + b * A;
      for (int64_t t = 0; t < T; ++t) {
        const float* qr = q + (b * T + t) * A;
        float* dqr = dq + (b * T + t) * A;
        const float* gr = g + (b * T + t) * J;
        for (int64_t j = 0; j < J; ++j) {
          const float gv = gr[j];
          if (gv == 0.f) continue;  // masked memory positions: no gradient flows
          const float* pr = p + (b * J + j) * A;
          float* dpr = dp + (b * J + j) * A;
#pragma omp simd
          for (int64_t a = 0; a < A; ++a) {
            const float s = std::tanh(pr[a] + qr[a]);
            const float d = gv * wa[a] * (1.f - s * s);
            dqr[a] += d;
            dpr[a] += d;
            dwb[a] += gv * s;
          }
        }
      }
    }
  });
  return {dP, dQ, dw_rows.sum(0)};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scores_forward", &scores_forward, "additive attention scores E[b,t,j]");
  m.def("scores_backward", &scores_backward, "gradients of the scores with respect to P, Q and w");
}
