#include "editproto/line_share.hpp"

#include "editproto/path_line.hpp"

#include <algorithm>

namespace editproto::detail {

namespace {
constexpr std::size_t kReach = 256;
}  // namespace

std::uint32_t line_share(std::string_view a, std::string_view b, std::size_t& work) {
  a = trim(a);
  b = trim(b);
  const std::size_t shorter = std::min(a.size(), b.size()), longer = std::max(a.size(), b.size());
  if (longer == 0) return 0;
  // Each end is compared for at most kReach bytes: a line of up to twice
  // that is measured exactly, a longer one by its ends.
  const std::size_t reach = std::min(shorter, kReach);
  std::size_t prefix = 0;
  while (prefix < reach && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < reach && prefix + suffix < shorter && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  work += prefix + suffix + 1;
  // Less than half: what two unrelated lines share (a `;`, a `return `) is
  // no sign of where the section belongs.
  if ((prefix + suffix) * 2 < longer) return 0;
  // Below a whole line even when one line is the other's start: they differ.
  return static_cast<std::uint32_t>(std::min<std::size_t>(kWholeLine - 1, (prefix + suffix) * kWholeLine / longer));
}

}  // namespace editproto::detail
