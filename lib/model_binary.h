// A compact binary form of a model, for the model compiled into the router binary: a small JSON
// header (config, labels, calibration, metadata), the tokenizer blob, then every tensor as raw
// little-endian float32 in the fixed order of params.h. Loading copies the floats straight into
// place, so start-up costs microseconds rather than a JSON parse. Every size is checked first.
#pragma once

#include <string>
#include <string_view>

#include "model.h"

namespace router {

std::string model_to_binary(const Model& model);
// Throws ModelError naming `name` if the bytes are not a valid model.
Model model_from_binary(std::string_view bytes, const std::string& name);

}  // namespace router
