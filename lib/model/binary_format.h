// A compact binary form of a model, for the model compiled into the router binary: a small JSON
// header (config, labels, calibration, metadata), the tokenizer blob, then every tensor as raw
// little-endian float32 in the fixed order of params.h, starting at a multiple of 64 bytes, and
// optionally a table of known words (text/known_words.h).
// Loading copies the floats straight into place, so start-up costs microseconds rather than a
// JSON parse. Every size is checked first.
#pragma once

#include <string>
#include <string_view>

#include "model/model.h"

namespace router {

// known_words: a table from Tokenizer::known_words_for, stored after the tensors (none if empty).
std::string model_to_binary(const Model& model, const std::string& known_words = "");
// Throws ModelError naming `name` if the bytes are not a valid model. With `borrow`, the bytes
// must outlive the model and are trusted (the built-in model, checked when it was packed): the
// embedding table is read in place rather than copied (Model::borrow_embedding), weights are not
// checked for NaN again, and the tokenizer's SentencePiece model is parsed only if a word is not
// among the known words.
Model model_from_binary(std::string_view bytes, const std::string& name, bool borrow = false);

}  // namespace router
