// The model compiled into the binary (models/crumb.json, converted at build time), or nothing
// when this build has none.
#pragma once

#include <optional>

#include "model.h"

namespace router {

std::optional<Model> builtin_model();

}  // namespace router
