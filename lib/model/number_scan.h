// The fast path of the model loader. Almost all of a model file is the numbers in
// /tensors/<name>/data; a DOM parse spends most of its time making one JSON node per number.
// split_tensor_data finds those arrays with a quick structural scan and returns the rest of the
// document with each of them replaced by `[]`, small enough for the validating DOM parse; once
// the shapes are known, parse_floats reads each array straight into its tensor. Both give up on
// anything unusual (nullopt, -1): the caller then parses the whole text the slow way, which owns
// every error message.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace router {

struct SplitModelText {
  std::string rest;  // the text with every data array emptied
  // tensor name -> inside of its [...]; an ensemble's other members' tensors are named
  // member_prefix(i) + name, i counted from 0 in the "members" array.
  std::map<std::string, std::string_view> data;
};
std::string member_prefix(int member);

// Nullopt when the text is not a well-formed model file in the expected shape. The views point
// into `text`.
std::optional<SplitModelText> split_tensor_data(std::string_view text, int max_depth);

// The comma-separated numbers of one data array into out[0..capacity); returns how many there
// are (also when more than capacity: only capacity are written), or -1 when one is not plain
// JSON or does not fit a finite float. Each is read as a double, then narrowed to float, as
// the DOM path does, so both give the same bits.
int64_t parse_floats(std::string_view inside, float* out, int64_t capacity);

}  // namespace router
