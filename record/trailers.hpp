// The trailers editgate writes under its commit messages: one definition for
// every writer (edit runs, undo, the REPL's requests and replies) and for the
// readers (`editgate log`, `editgate undo`). Char arrays, so they serve as
// std::string and std::string_view alike.
#pragma once

namespace record::trailer {

inline constexpr char agent[] = "Editgate-Agent";        // who asked: an agent's name
inline constexpr char session[] = "Editgate-Session";    // the edit session's id
inline constexpr char kind[] = "Editgate-Kind";          // edit, earlier-state, undo, request, reply, page, ...
inline constexpr char undoes[] = "Editgate-Undo";        // the commit an undo reverts
inline constexpr char job[] = "Editgate-Job";            // a page's job number
inline constexpr char page[] = "Editgate-Page";          // the page whose log it is
inline constexpr char duration[] = "Editgate-Duration";  // a reply's duration, "12ms"
inline constexpr char status[] = "Editgate-Status";      // how a reply ended
inline constexpr char repl[] = "Editgate-Repl";          // on a branch commit: the REPL ref's tip then
inline constexpr char branch[] = "Editgate-Branch";      // on a REPL commit: the branch commit its pages saw

}  // namespace record::trailer
