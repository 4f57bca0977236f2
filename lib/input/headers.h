// Editing a message's header block and nothing else: `router filter` removes any header fields
// of its own name that a sender put there (so nobody can pre-set a route) and adds its verdict
// at the end of the header block. Every byte outside the removed and added lines is kept as it
// is, and the added lines end as the message's first line does (CRLF or LF).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace router {

// "\r\n" if the message's first line ends with CRLF, else "\n".
std::string line_ending(std::string_view message);

// `message` with every header field whose name starts with `prefix` (ASCII case ignored) removed,
// folded continuation lines included, and `fields` ("Name: value", no line ending) added after
// the last header field. An mbox "From " line at the start is kept. Input that does not start
// with a header field gets `fields` and a blank line in front of it, which makes it a message.
std::string stamp_headers(std::string_view message, std::string_view prefix,
                          const std::vector<std::string>& fields);

// True if `line` starts with `prefix`, ASCII case ignored: how header field names compare.
bool has_prefix(std::string_view line, std::string_view prefix);

// A header value from any text: one line of printable ASCII (other bytes become '?', line breaks
// and tabs spaces), at most `max` bytes, so that no value can end the header or add a field.
std::string header_value(std::string_view text, size_t max = 200);

}  // namespace router
