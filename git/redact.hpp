// Credentials kept out of what is shown: a push remote's URL may carry a
// user name and password (written in .git/config, say), and libgit2's
// messages may quote it. Whatever names a remote in a reply, an event or a
// log line goes through redact_urls first.
#pragma once

#include <string>
#include <string_view>

namespace editgit {

// `text` with the userinfo of every `scheme://user:password@host` URL in
// it taken out (`scheme://host`). An scp-like `user@host:path` keeps its
// user: it has no password, and the name is no secret.
std::string redact_urls(std::string_view text);

// Whether `remote` is a URL that carries a secret: a password in its
// userinfo, or any userinfo at all in http(s) (where a lone user name is
// often a token). Such a remote would show in the process list.
bool carries_credentials(std::string_view remote);

}  // namespace editgit
