// libFuzzer target: arbitrary bytes as a JSON model file (load_model_from_string). Promise
// checked: the loader either returns a usable model or throws ModelError; nothing else escapes,
// nothing crashes, and a loaded model can classify.
#include <cstdint>
#include <string>

#include "base/errors.h"
#include "model/json_format.h"
#include "model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const router::Model model = router::load_model_from_string(text, "fuzz.json");
    model.predict("Refund the delivery fee, not the cake.");
  } catch (const router::ModelError&) {
  }
  return 0;
}
