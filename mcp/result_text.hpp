// The text content of a tool result: what a model reads and acts on. The
// whole reply stays in structuredContent, for programs; the text says the
// same for a reader, with no JSON to unescape (docs/decisions/mcp.md).
#pragma once

#include <boost/json/object.hpp>

#include <string>

namespace mcp {

// How a result reads, by what made it.
enum class TextStyle {
  reply,  // an op's final reply: its `text` when it has one (an edit's report), else an outline
  eval,   // code run in a page: what it printed, then its value or its error
};

// A failure's first line, `error <code>: <message>`, when `structured` has
// an `error`; then the reply as `style` reads it. Fields that say nothing
// (null, empty) are left out.
std::string result_text(const boost::json::object& structured, TextStyle style);

// A JSON value as an indented outline: `key: value` lines, `- ` items,
// strings as they are (several lines indented under their key), null and
// empty members left out.
std::string outline(const boost::json::value& v);

}  // namespace mcp
