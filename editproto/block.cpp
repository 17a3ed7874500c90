#include "editproto/block.hpp"

#include <cstring>

namespace editproto {

std::string_view to_string(WarningCode c) {
  switch (c) {
    case WarningCode::stray_marker: return "stray_marker";
  }
  return "stray_marker";
}

Block make_block(std::string path, std::span<const std::string> edit, std::span<const std::string> repl) {
  // One allocation for the views and the bytes, as the parser makes them.
  const std::size_t views = edit.size() + repl.size();
  std::size_t bytes = 0;
  for (const auto& l : edit) bytes += l.size();
  for (const auto& l : repl) bytes += l.size();
  const std::size_t tail = (bytes + sizeof(std::string_view) - 1) / sizeof(std::string_view);
  std::shared_ptr<std::string_view[]> storage = std::make_shared<std::string_view[]>(views + tail);
  char* text = reinterpret_cast<char*>(storage.get() + views);
  std::size_t at = 0, v = 0;
  for (auto section : {edit, repl})
    for (const auto& l : section) {
      if (!l.empty()) std::memcpy(text + at, l.data(), l.size());
      storage[v++] = std::string_view(text + at, l.size());
      at += l.size();
    }
  Block b;
  b.path = std::move(path);
  b.edit = std::span<const std::string_view>(storage.get(), edit.size());
  b.repl = std::span<const std::string_view>(storage.get() + edit.size(), repl.size());
  b.storage = std::move(storage);
  return b;
}

}  // namespace editproto
