// libFuzzer target: arbitrary bytes as a binary model (model_from_binary, the built-in model's
// form). Promise checked: a valid model or a ModelError, never a crash or a huge allocation.
#include <cstdint>
#include <string_view>

#include "base/errors.h"
#include "model/binary_format.h"
#include "model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const router::Model model = router::model_from_binary(bytes, "fuzz.bin");
    model.predict("Refund the delivery fee, not the cake.");
  } catch (const router::ModelError&) {
  }
  return 0;
}
