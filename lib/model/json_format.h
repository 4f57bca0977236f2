// Reading and writing the JSON model file of docs/model-format.md. Loading validates everything
// before the model is used and reports the first problem with the file name and JSON path.
// Saving is atomic (temporary file, then rename) and byte-deterministic.
#pragma once

#include <string>

#include "model/model.h"

namespace router {

// Throws ModelError ("<path>: /json/path: problem") or IoError.
Model load_model(const std::string& path);
// `name` stands in for the path in error messages.
Model load_model_from_string(const std::string& text, const std::string& name);

// The whole file as a string (shortest round-trip floats, fixed key order).
std::string model_to_json(const Model& model);
// Writes model_to_json atomically; throws IoError.
void save_model(const Model& model, const std::string& path);

}  // namespace router
