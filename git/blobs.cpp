// What git holds of a file, and what it would name its bytes: the gateway
// asks before it runs text found in a chat log (text that is part of a
// commit never runs), the edit-run journal names what a run wrote.
#include "git/handle.hpp"
#include "git/repository.hpp"

namespace editgit {

using namespace detail;

std::string blob_id(std::string_view bytes) {
  init_library();
  git_oid id;
  if (git_odb_hash(&id, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) < 0) return {};
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &id);
  return hex;
}

Result<bool> Repository::holds_blob(const std::string& path, std::string_view bytes) const {
  const std::string full = prefix_ + path;
  // Hashed as `git add` would store it: through the clean filters (.gitattributes, line endings).
  git_filter_list* raw = nullptr;
  if (int rc = git_filter_list_load(&raw, repo_, nullptr, full.c_str(), GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT); rc < 0)
    return failure(rc, "cannot load the filters (.gitattributes) for " + full);
  FilterListPtr filters(raw);
  git_oid id;
  int rc = 0;
  if (!filters) {
    rc = git_odb_hash(&id, bytes.data(), bytes.size(), GIT_OBJECT_BLOB);
  } else {
    git_buf out = GIT_BUF_INIT;
    rc = git_filter_list_apply_to_buffer(&out, filters.get(), bytes.data(), bytes.size());
    if (rc == 0) rc = git_odb_hash(&id, out.ptr, out.size, GIT_OBJECT_BLOB);
    git_buf_dispose(&out);
  }
  if (rc < 0) return failure(rc, "cannot hash " + full);
  git_odb* raw_odb = nullptr;
  if (int orc = git_repository_odb(&raw_odb, repo_); orc < 0) return failure(orc, "cannot open the object store");
  OdbPtr odb(raw_odb);
  // A miss rereads the packs, so objects another git process just fetched count.
  return git_odb_exists(odb.get(), &id) == 1;
}

Result<std::optional<std::string>> Repository::head_text(const std::string& path) const {
  auto head = read_head(repo_);
  if (!head) return head.error();
  if (!head->tree) return std::optional<std::string>();
  const std::string full = prefix_ + path;
  git_tree_entry* raw_entry = nullptr;
  int rc = git_tree_entry_bypath(&raw_entry, head->tree.get(), full.c_str());
  if (rc == GIT_ENOTFOUND) {
    git_error_clear();
    return std::optional<std::string>();
  }
  if (rc < 0) return failure(rc, "cannot look up " + full + " in HEAD");
  TreeEntryPtr entry(raw_entry);
  if (git_tree_entry_type(raw_entry) != GIT_OBJECT_BLOB) return std::optional<std::string>();
  git_blob* raw_blob = nullptr;
  if (int brc = git_blob_lookup(&raw_blob, repo_, git_tree_entry_id(raw_entry)); brc < 0)
    return failure(brc, "cannot read " + full + " in HEAD");
  BlobPtr blob(raw_blob);
  // As a checkout writes it (smudge filters, line endings), to compare with the file.
  git_buf buf = GIT_BUF_INIT;
  git_blob_filter_options fo = GIT_BLOB_FILTER_OPTIONS_INIT;
  fo.flags = 0;
  rc = git_blob_filter(&buf, raw_blob, full.c_str(), &fo);
  if (rc < 0) return failure(rc, "cannot filter " + full + " from HEAD");
  std::string text(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  return std::optional<std::string>(std::move(text));
}

}  // namespace editgit
