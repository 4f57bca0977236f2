// main() of router_bench. The allocator is set up as the router binary sets it up (apps/main.cc):
// freed blocks are kept for reuse instead of being returned to the kernel, so a batch's fresh
// activation matrices do not fault in zeroed pages on every call. Without this, batched
// inference in this binary spends most of its time in page faults and is not what router runs.
#include <malloc.h>

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
