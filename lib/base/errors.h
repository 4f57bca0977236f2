// Typed errors thrown by the library. The CLI maps each kind to one exit code (README, "Exit
// codes"); lib/ never exits. A message names where the problem is: a file, a line or array
// index, or a JSON path, so a user can go straight to it.
#pragma once

#include <stdexcept>
#include <string>

namespace router {

// Exit codes, one per kind of failure.
enum class ExitCode : int {
  kOk = 0,
  kFailure = 1,        // anything unexpected (a bug, if it ever happens)
  kUsage = 2,          // bad command line
  kBadInput = 3,       // unreadable or malformed input data or text
  kBadModel = 4,       // model file malformed or inconsistent (a missing file is kIo)
  kIo = 5,             // cannot write an output, disk full, ...
  kSkipped = 6,        // finished, but --skip-invalid skipped some records
  kInterrupted = 130,  // SIGINT / SIGTERM
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Malformed input data: a dataset record, an email, a text.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(ExitCode::kBadInput, what) {}
};

// A model file that cannot be used; `what` names the file and the JSON path.
class ModelError : public Error {
 public:
  explicit ModelError(const std::string& what) : Error(ExitCode::kBadModel, what) {}
};

// A file that cannot be read or written.
class IoError : public Error {
 public:
  explicit IoError(const std::string& what) : Error(ExitCode::kIo, what) {}
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(ExitCode::kUsage, what) {}
};

class InterruptedError : public Error {
 public:
  InterruptedError() : Error(ExitCode::kInterrupted, "interrupted") {}
};

}  // namespace router
