// Peer benchmark (this project's): NVIDIA NPP on the very pictures texelflow's bench times, for
// the operations issue 32 races (Canny, resizes, histogram, Laplacian), each on the random and
// on the photo-like picture. The inputs come from `texelflow bench --npp-paired --write-inputs
// DIR` (raw pixels, rows unpadded, one file per buffer set), so both sides read the same bytes.
// Timing as npp_peer.cu: CUDA events, 3 warm-up calls, median of REPS, the 8 buffer sets
// rotated so the working set is not cache-resident.
// Build: nvcc -O2 -std=c++17 -arch=sm_90 npp_same.cu -o npp_same -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc
// Run:   ./npp_same DIR [width height reps]   -> TSV: npp, op [content], median_ms, min_ms, bytes_moved
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
static const int R = 8;  // buffer sets, as texelflow bench's default --sets
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

// One set's file into a new device buffer of exactly `bytes`.
static Npp8u* load(const std::string& dir, const std::string& name, size_t bytes) {
  std::string path = dir + "/" + name;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) { fprintf(stderr, "cannot open %s (write it with texelflow bench --npp-paired --write-inputs)\n", path.c_str()); exit(1); }
  std::vector<unsigned char> host(bytes);
  size_t got = fread(host.data(), 1, bytes, f);
  fclose(f);
  if (got != bytes) { fprintf(stderr, "%s holds %zu bytes, expected %zu\n", path.c_str(), got, bytes); exit(1); }
  Npp8u* d; CK(cudaMalloc(&d, bytes)); CK(cudaMemcpy(d, host.data(), bytes, cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: npp_same DIR [width height reps]\n"); return 2; }
  std::string dir = argv[1];
  if (argc >= 4) { W = atoi(argv[2]); H = atoi(argv[3]); }
  if (argc >= 5) REPS = atoi(argv[4]);
  CK(cudaSetDevice(0));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  ctx.hStream = 0; ctx.nCudaDeviceId = 0; ctx.nMultiProcessorCount = p.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor; ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = p.sharedMemPerBlock; ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = p.minor; ctx.nStreamFlags = 0;
  fprintf(stderr, "device %s, image %dx%d, inputs from %s, %d buffer sets\n", p.name, W, H, dir.c_str(), R);

  const int HW = W / 2, HH = H / 2;
  size_t n4 = (size_t)W * H * 4, n1 = (size_t)W * H, h4 = (size_t)HW * HH * 4;
  NppiSize sz{W, H}, hs{HW, HH}; NppiRect sr{0, 0, W, H}, hr{0, 0, HW, HH}; NppiPoint o0{0, 0};
  int st4 = W * 4, st1 = W, hst4 = HW * 4;
  static Npp8u *D[R], *G1O[R], *HO[R];
  for (int r = 0; r < R; r++) { CK(cudaMalloc(&D[r], n4)); CK(cudaMalloc(&G1O[r], n1)); CK(cudaMalloc(&HO[r], h4)); }
  int canny_bs = 0; NK(nppiFilterCannyBorderGetBufferSize(sz, &canny_bs)); Npp8u* canny_buf; CK(cudaMalloc(&canny_buf, canny_bs));
  int nl[4] = {257, 257, 257, 257}; Npp32s lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256};
  size_t hist_bs = 0; NK(nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(sz, nl, &hist_bs, ctx)); Npp8u* hist_buf; CK(cudaMalloc(&hist_buf, hist_bs));
  Npp32s* hist; CK(cudaMalloc(&hist, 4 * 256 * 4)); Npp32s* ph[4] = {hist, hist + 256, hist + 512, hist + 768};

  for (const char* content : {"random", "photo"}) {
    static Npp8u *S[R], *G1[R], *HALF[R];
    char name[256];
    for (int r = 0; r < R; r++) {
      snprintf(name, sizeof name, "%s_rgba8_%dx%d_%d.raw", content, W, H, r); S[r] = load(dir, name, n4);
      snprintf(name, sizeof name, "%s_gray8_%dx%d_%d.raw", content, W, H, r); G1[r] = load(dir, name, n1);
      snprintf(name, sizeof name, "%s_rgba8_%dx%d_%d.raw", content, HW, HH, r); HALF[r] = load(dir, name, h4);
    }
    std::string tag = std::string(" [") + content + "]";
#define src S[cur]
#define dst D[cur]
    bench("copy_d2d" + tag, 2.0 * n4, [&] { CK(cudaMemcpyAsync(dst, src, n4, cudaMemcpyDeviceToDevice, ctx.hStream)); });
    bench("canny_gray" + tag, 2.0 * n1, [&] { NK(nppiFilterCannyBorder_8u_C1R_Ctx(G1[cur], st1, sz, o0, G1O[cur], st1, sz, NPP_FILTER_SOBEL, NPP_MASK_SIZE_3_X_3, 50, 150, nppiNormL2, NPP_BORDER_REPLICATE, canny_buf, ctx)); });
    bench("resize_cubic_up2_rgba" + tag, h4 + n4, [&] { NK(nppiResize_8u_C4R_Ctx(HALF[cur], hst4, hs, hr, dst, st4, sz, sr, NPPI_INTER_CUBIC, ctx)); });
    bench("resize_lanczos_up2_rgba" + tag, h4 + n4, [&] { NK(nppiResize_8u_C4R_Ctx(HALF[cur], hst4, hs, hr, dst, st4, sz, sr, NPPI_INTER_LANCZOS, ctx)); });
    bench("resize_bilinear_up2_rgba" + tag, h4 + n4, [&] { NK(nppiResize_8u_C4R_Ctx(HALF[cur], hst4, hs, hr, dst, st4, sz, sr, NPPI_INTER_LINEAR, ctx)); });
    bench("resize_bilinear_down2_rgba" + tag, n4 + h4, [&] { NK(nppiResize_8u_C4R_Ctx(src, st4, sz, sr, HO[cur], hst4, hs, hr, NPPI_INTER_LINEAR, ctx)); });
    bench("resize_area_down2_rgba" + tag, n4 + h4, [&] { NK(nppiResize_8u_C4R_Ctx(src, st4, sz, sr, HO[cur], hst4, hs, hr, NPPI_INTER_SUPER, ctx)); });
    bench("histogram_256_rgba" + tag, n4, [&] { NK(nppiHistogramEven_8u_C4R_Ctx(src, st4, sz, ph, nl, lo, hi, hist_buf, ctx)); });
    bench("laplace_3x3_c4" + tag, 2.0 * n4, [&] { NK(nppiFilterLaplaceBorder_8u_C4R_Ctx(src, st4, sz, o0, dst, st4, sz, NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE, ctx)); });
#undef src
#undef dst
    for (int r = 0; r < R; r++) { CK(cudaFree(S[r])); CK(cudaFree(G1[r])); CK(cudaFree(HALF[r])); }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
