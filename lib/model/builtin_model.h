// The models compiled into the binary (models/crumb.json and models/crumb-nopos.json, packed at
// build time), or nothing when this build has none.
#pragma once

#include <optional>
#include <string_view>

#include "model/model.h"

namespace router {

// name: "crumb" (the default model) or "crumb-nopos" (the same without positions).
std::optional<Model> builtin_model(std::string_view name = "crumb");

}  // namespace router
