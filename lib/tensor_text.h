// The fast path of the model loader. Almost all of a model file is the numbers in
// /tensors/<name>/data; a DOM parse spends most of its time making one JSON node per number.
// split_tensor_data finds those arrays with a quick structural scan, parses their numbers straight
// into floats, and returns the rest of the document with each of them replaced by `[]`, small
// enough for the validating DOM parse. It gives up (returns nullopt) on anything unusual: the
// caller then parses the whole text the slow way, which owns every error message.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace router {

struct SplitModelText {
  std::string rest;                                 // the text with every data array emptied
  std::map<std::string, std::vector<float>> data;   // tensor name -> its numbers, in order
};

// Nullopt when the text is not a well-formed model file in the expected shape, when a number is
// not plain JSON, or when one does not fit a finite float.
std::optional<SplitModelText> split_tensor_data(std::string_view text, int max_depth);

}  // namespace router
