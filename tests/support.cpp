#include "support.hpp"

#include <algorithm>
#include <iterator>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace test {

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "editgate-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::size_t count_entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

void write_file(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<editproto::Block> parse(const std::string& response, editproto::Limits limits) {
  editproto::Parser p(limits);
  std::vector<editproto::Block> out;
  p.feed(response, out);
  p.finish(out);
  return out;
}

Run check_response(const std::string& root, const std::string& response, editproto::Options options,
                   std::size_t prepared) {
  auto ws = editproto::Workspace::open(root);
  if (!ws) throw std::runtime_error(ws.error().detail);
  editproto::Session session(*ws, options);
  std::vector<editproto::Block> blocks = parse(response, options.limits);
  session.prepare(std::span(blocks).first(std::min(prepared, blocks.size())));
  for (const editproto::Block& b : blocks) session.submit(b);
  Run r;
  r.results = session.flush();
  r.auto_added = session.files_auto_added();
  return r;
}

Run apply_response(const std::string& root, const std::string& response, editproto::Options options,
                   std::size_t prepared) {
  options.dry_run = false;
  return check_response(root, response, std::move(options), prepared);
}

std::vector<std::string> strings(std::span<const std::string_view> lines) {
  return {lines.begin(), lines.end()};
}

std::string block(const std::string& path, const std::vector<std::string>& edit,
                  const std::vector<std::string>& repl) {
  std::string out = path + "\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";
  for (const std::string& l : edit) out += l + "\n";
  out += "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n";
  for (const std::string& l : repl) out += l + "\n";
  out += "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
  return out;
}

}  // namespace test
