// Peer benchmark (this project's, beside shared/peers/npp_peer.cu), colour and 3x3 operations: NVIDIA NPP on RGBA8 images, timed with CUDA events
// (the same harness as npp_peer.cu; kept apart so a missing entry point costs only these rows).
// Build: nvcc -O2 -std=c++17 -arch=sm_90 npp_peer.cu -o npp_peer -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc
// Run:   ./npp_peer [width height reps]   -> TSV: op, median_ms, min_ms, bytes_moved
#include <cuda_runtime.h>
#include <npp.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1);} } while (0)
#define NK(x) do { NppStatus s = (x); if (s < 0) { fprintf(stderr, "NPP status %d at %s:%d\n", (int)s, __FILE__, __LINE__); exit(1);} } while (0)

static int W = 3840, H = 2160, REPS = 30;
static const int R = 8;  // buffer sets rotated per call so the working set (> 4x L2) is not cache-resident
static int cur = 0;
static NppStreamContext ctx;

static void bench(const std::string& name, double bytes, const std::function<void()>& f) {
  cur = 0;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; i++) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < REPS; i++) {
    cur = (cur + 1) % R;
    CK(cudaEventRecord(a, ctx.hStream)); f(); CK(cudaEventRecord(b, ctx.hStream));
    CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  printf("npp\t%s\t%.4f\t%.4f\t%.0f\n", name.c_str(), t[t.size() / 2], t[0], bytes);
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc >= 3) { W = atoi(argv[1]); H = atoi(argv[2]); }
  if (argc >= 4) REPS = atoi(argv[3]);
  CK(cudaSetDevice(0));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  ctx.hStream = 0; ctx.nCudaDeviceId = 0; ctx.nMultiProcessorCount = p.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor; ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = p.sharedMemPerBlock; ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = p.minor; ctx.nStreamFlags = 0;
  fprintf(stderr, "device %s, image %dx%d rgba8, %d rotating buffer sets\n", p.name, W, H, R);

  size_t n4 = (size_t)W * H * 4, n1 = (size_t)W * H, n3 = (size_t)W * H * 3;
  std::vector<unsigned char> host(n4);
  unsigned s = 12345; for (auto& v : host) { s = s * 1664525u + 1013904223u; v = (unsigned char)(s >> 24); }
  // smooth-ish content so edge detectors have structure: add a gradient
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) for (int c = 0; c < 3; c++) {
    size_t i = ((size_t)y * W + x) * 4 + c; host[i] = (unsigned char)((host[i] >> 3) + ((x * 7 + y * 3 + c * 50) & 0xdf));
  }
  static Npp8u *S[R], *S2[R], *D[R];
  NppiSize sz{W, H}; NppiPoint o0{0, 0}; int st4 = W * 4;
  for (int r = 0; r < R; r++) {
    CK(cudaMalloc(&S[r], n4)); CK(cudaMalloc(&S2[r], n4)); CK(cudaMalloc(&D[r], n4));
    CK(cudaMemcpy(S[r], host.data(), n4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(S2[r], host.data() + 4, n4 - 4, cudaMemcpyHostToDevice));
  }
#define src S[cur]
#define src2 S2[cur]
#define dst D[cur]
  double rw4 = 2.0 * n4;
  bench("copy_d2d", rw4, [&] { CK(cudaMemcpyAsync(dst, src, n4, cudaMemcpyDeviceToDevice, ctx.hStream)); });
  // sepia as a colour twist (alpha unchanged)
  const Npp32f twist[3][4] = {{0.3588f, 0.7044f, 0.1368f, 0.f}, {0.299f, 0.587f, 0.114f, 0.f}, {0.2392f, 0.4696f, 0.0912f, 0.f}};
  bench("colortwist_ac4", rw4, [&] { NK(nppiColorTwist32f_8u_AC4R_Ctx(src, st4, dst, st4, sz, twist, ctx)); });
  const Npp8u gain[4] = {154, 102, 141, 128};  // (x * c) >> 7: gains 1.2, 0.8, 1.1, 1
  bench("mulc_c4", rw4, [&] { NK(nppiMulC_8u_C4RSfs_Ctx(src, st4, gain, dst, st4, sz, 7, ctx)); });
  const Npp8u add[4] = {25, 25, 25, 0};
  bench("addc_c4", rw4, [&] { NK(nppiAddC_8u_C4RSfs_Ctx(src, st4, add, dst, st4, sz, 0, ctx)); });
  bench("mul_c4", 3.0 * n4, [&] { NK(nppiMul_8u_C4RSfs_Ctx(src, st4, src2, st4, dst, st4, sz, 8, ctx)); });
  bench("alphacomp_over_ac4", 3.0 * n4, [&] { NK(nppiAlphaComp_8u_AC4R_Ctx(src, st4, src2, st4, dst, st4, sz, NPPI_OP_ALPHA_OVER, ctx)); });
  {
    const Npp32s k[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    Npp32s* dk; CK(cudaMalloc(&dk, sizeof k)); CK(cudaMemcpy(dk, k, sizeof k, cudaMemcpyHostToDevice));
    bench("filter_3x3_c4", rw4, [&] { NK(nppiFilterBorder_8u_C4R_Ctx(src, st4, sz, o0, dst, st4, sz, dk, NppiSize{3, 3}, NppiPoint{1, 1}, 1, NPP_BORDER_REPLICATE, ctx)); });
  }
  bench("laplace_3x3_c4", rw4, [&] { NK(nppiFilterLaplaceBorder_8u_C4R_Ctx(src, st4, sz, o0, dst, st4, sz, NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE, ctx)); });
  bench("sharpen_c4", rw4, [&] { NK(nppiFilterSharpenBorder_8u_C4R_Ctx(src, st4, sz, o0, dst, st4, sz, NPP_BORDER_REPLICATE, ctx)); });
  CK(cudaDeviceSynchronize());
  return 0;
}
