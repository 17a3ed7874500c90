// p50 and p99 of latency samples, for the benchmarks' tables.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace bench {

struct Percentiles {
  double p50 = 0, p99 = 0;
};

// Nearest rank below; `v` must not be empty.
inline Percentiles percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]; };
  return {at(0.50), at(0.99)};
}

inline double ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace bench
