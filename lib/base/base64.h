// Base64 (RFC 4648, standard alphabet, '=' padding), used to store binary blobs such as the
// serialized SentencePiece model inside the JSON model file. Decoding is strict: only canonical
// encodings are accepted (no white space, no missing or misplaced padding, no stray bits), and
// every error names `where` and the byte position, as a router::ModelError.
#pragma once

#include <string>
#include <string_view>

namespace router {

std::string base64_encode(std::string_view bytes);

// Throws ModelError("<where>: invalid base64 at position N: ...") on malformed input.
std::string base64_decode(std::string_view text, std::string_view where = "base64");

}  // namespace router
