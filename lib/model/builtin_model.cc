#include "model/builtin_model.h"

#include "model/binary_format.h"

#ifdef ROUTER_HAS_BUILTIN_MODEL
// Defined by builtin_model_data.S, which includes the packed model files.
extern "C" const char router_model_crumb_begin[], router_model_crumb_end[];
extern "C" const char router_model_crumb_nopos_begin[], router_model_crumb_nopos_end[];
#endif

namespace router {

std::optional<Model> builtin_model(std::string_view name) {
#ifdef ROUTER_HAS_BUILTIN_MODEL
  auto load = [&](const char* begin, const char* end) {
    return model_from_binary(std::string_view(begin, static_cast<size_t>(end - begin)),
                             "built-in model " + std::string(name), /*borrow=*/true);
  };
  if (name == "crumb") return load(router_model_crumb_begin, router_model_crumb_end);
  if (name == "crumb-nopos")
    return load(router_model_crumb_nopos_begin, router_model_crumb_nopos_end);
#else
  (void)name;
#endif
  return std::nullopt;
}

}  // namespace router
