#include "gateway/inbox.hpp"

#include "ops/dispatch.hpp"
#include "services/places.hpp"

#include "repl/agent_files.hpp"
#include "repl/log.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gateway {

namespace json = boost::json;

namespace {

// The message's text, a piece per read.
class FileText final : public ops::TextSource {
 public:
  FileText(boost::asio::any_io_executor ex, int fd) : ex_(std::move(ex)), fd_(fd) {}
  ~FileText() override { ::close(fd_); }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  void next(std::function<void(ops::Piece)> got) override {
    std::string buf(64 * 1024, '\0');
    ssize_t n = 0;
    do n = ::read(fd_, buf.data(), buf.size());
    while (n < 0 && errno == EINTR);
    ops::Piece piece = ops::Piece::last();
    if (n < 0) piece = ops::Piece::broken({services::Error::io, "the message could not be read further"});
    else if (n > 0) piece = ops::Piece::more(buf.substr(0, static_cast<std::size_t>(n)));
    // Posted, not called: a long message is read a step at a time, never as
    // one deep chain of calls.
    boost::asio::post(ex_, [got = std::move(got), piece = std::move(piece)]() mutable { got(std::move(piece)); });
  }
  // A dropped message sets no option: no diagnostic suggests one.
  editproto::OptionSyntax option_syntax() const override { return editproto::OptionSyntax::none; }

 private:
  boost::asio::any_io_executor ex_;
  int fd_;
};

// The op's replies, written to the outbox when the final one comes.
class OutboxReplies final : public services::Replies {
 public:
  OutboxReplies(boost::asio::any_io_executor ex, std::string agents, std::string name,
                std::function<std::uint64_t()> sequence)
      : ex_(std::move(ex)), agents_(std::move(agents)), name_(std::move(name)), sequence_(std::move(sequence)) {}

  boost::asio::any_io_executor executor() const override { return ex_; }
  void part(json::object body) override {
    if (json::value* block = body.if_contains("block")) blocks_.push_back(std::move(*block));
  }
  void done(json::object body) override {
    // Blocks that failed are no failure of the request, but of the message.
    const json::value* ok = body.if_contains("ok");
    body["status"] = ok && ok->is_bool() && ok->get_bool() ? json::array{"done"} : json::array{"done", "error"};
    answer(std::move(body));
  }
  void fail(services::Failure failure, json::object body) override {
    services::mark_final(body, failure);
    answer(std::move(body));
  }

 private:
  void answer(json::object body) {
    const std::string stem = name_.substr(0, name_.size() - 3);
    const std::string out = agents_ + "/outbox/" + stem;
    body["blocks"] = std::move(blocks_);
    body["file"] = "outbox/" + stem + ".md";
    if (!repl::replace_file(out + ".json", json::serialize(body) + "\n") ||
        !repl::replace_file(out + ".completed.marker", std::to_string(sequence_()) + "\n"))
      repl::log_line("cannot answer inbox/" + name_ + " in " + agents_ + "/outbox");
  }

  boost::asio::any_io_executor ex_;
  std::string agents_;
  std::string name_;
  std::function<std::uint64_t()> sequence_;
  json::array blocks_;
};

}  // namespace

void take_inbox(services::Gateway& gw, const std::string& agents, const std::string& name,
                std::function<std::uint64_t()> sequence) {
  const std::string stem = name.substr(0, name.size() - 3);
  const std::string in = agents + "/inbox/" + name;
  const std::string out = agents + "/outbox/" + stem;
  // A folder of its own, never a link (the answers would land where it led).
  if (auto made = services::private_folder(agents + "/outbox"); !made) {
    repl::log_line("cannot answer inbox/" + name + ": " + made.error().message);
    return;
  }
  std::remove((out + ".completed.marker").c_str());
  std::remove((out + ".json").c_str());

  // Never through a link, never a fifo's wait.
  const int fd = ::open(in.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const int open_error = errno;
  // The message leaves the inbox as it is taken, before anything of it is
  // applied: a second event for the same drop (a later close or rename in)
  // finds nothing, and the run is never made twice. The descriptor stays good.
  if (fd < 0 && open_error == ENOENT) return;  // taken already
  if (std::rename(in.c_str(), (out + ".md").c_str()) != 0) {
    if (fd >= 0) ::close(fd);
    if (errno != ENOENT)
      repl::log_line("cannot take inbox/" + name + " to outbox/" + stem + ".md: " + std::strerror(errno));
    return;
  }
  const boost::asio::any_io_executor ex = gw.worker().executor();
  auto replies = std::make_shared<OutboxReplies>(ex, agents, name, std::move(sequence));
  struct stat st {};
  if (fd < 0 && open_error != ELOOP)
    return replies->fail({services::Error::io, "the message could not be opened: " + std::string(std::strerror(open_error))}, {});
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return replies->fail({services::Error::bad_request, "not a file"}, {});
  }
  // The door's own bound first, as POST /v1/edits' Content-Length: nothing
  // of a message too long is applied.
  if (static_cast<std::size_t>(st.st_size) > ops::max_edit_text) {
    ::close(fd);
    return replies->fail({services::Error::payload_too_large,
                          "the message is over " + std::to_string(ops::max_edit_text) + " bytes"},
                         {});
  }
  ops::Envelope env{"inbox " + name};
  env.text = std::make_shared<FileText>(ex, fd);
  ops::dispatch(gw, *ops::find_op("edit"), std::move(env), {}, std::make_shared<ops::ConnectionState>(gw.worker(), ""),
                std::move(replies));
}

}  // namespace gateway
