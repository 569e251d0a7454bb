//===- runtime/CpuDispatch.cpp - FMA code paths chosen at start-up --------===//
#include "runtime/CpuDispatch.h"

#include <cstdlib>
#include <string_view>

namespace dlm::rt {

namespace {

/// Whether the CPU executes FMA instructions: cpuid's FMA and AVX bits, with the AVX state
/// enabled by the OS (libgcc's checks behind __builtin_cpu_supports).
bool cpuHasFma() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx");
#else
  return false;
#endif
}

bool portableForced() {
  const char *env = std::getenv("DLM_AOT_PORTABLE");
  return env && *env && std::string_view(env) != "0";
}

} // namespace

bool useFmaCodePaths() {
  static const bool fma = cpuHasFma() && !portableForced();
  return fma;
}

} // namespace dlm::rt
