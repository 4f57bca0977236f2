#include "builtin_model.h"

namespace router {

// Replaced by the build-time embedding once models/crumb.json exists.
std::optional<Model> builtin_model() { return std::nullopt; }

}  // namespace router
