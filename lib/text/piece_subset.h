// A SentencePiece BPE model cut down to the pieces a few words can use. BPE splits a word into
// its characters and merges neighbours into longer pieces, so every piece it can produce is a
// substring of the word as the model sees it ("▁" + word). A model holding only those pieces,
// plus the special and byte pieces, therefore encodes the word exactly as the whole model does,
// and parses in a fraction of the time: for one email, a few hundred pieces instead of 4,000,
// which is most of what a cold `router classify` pays for SentencePiece.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace router {

struct PieceSubset {
  std::string serialized;    // the model with only the kept pieces, in their order
  std::vector<int32_t> ids;  // ids[i]: the id in the whole model of the subset's piece i
};

// The subset of the serialized SentencePiece model `serialized` for `words` (pre-tokens: no
// white space; the caller checks). Every piece that is not NORMAL or UNUSED (control, unknown,
// byte, user-defined) is kept, so the special ids stay where they are. nullopt if `serialized`
// is not well-formed protobuf wire format; parsing the subset checks the rest.
std::optional<PieceSubset> piece_subset(std::string_view serialized,
                                        const std::vector<std::string_view>& words);

}  // namespace router
