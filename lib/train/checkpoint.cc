#include "train/checkpoint.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/files.h"
#include "base/little_endian.h"

namespace router {

namespace {

constexpr std::string_view kMagic = "ROUTERCK";

void append_tensors(std::string& out, const Params<float>& p) {
  for (const auto& t : tensors(p)) {
    out.append(reinterpret_cast<const char*>(t.data), static_cast<size_t>(t.size) * sizeof(float));
  }
}

// Fills `p` (shaped already) from `bytes` at `at`, advancing it.
void take_tensors(std::string_view bytes, size_t& at, Params<float>& p, const std::string& path) {
  for (auto& t : tensors(p)) {
    const size_t n = static_cast<size_t>(t.size) * sizeof(float);
    if (bytes.size() - at < n) {
      throw InputError(path + ": the checkpoint is cut short (at " + t.name + ")");
    }
    std::memcpy(t.data, bytes.data() + at, n);
    at += n;
  }
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  const nlohmann::json header = {{"fingerprint", c.fingerprint},
                                 {"epoch", c.epoch},
                                 {"step", c.step},
                                 {"best_epoch", c.best_epoch},
                                 {"since_best", c.since_best},
                                 {"average", !c.average.layers.empty()}};
  std::string out(kMagic);
  const std::string h = header.dump();
  put_u32(out, static_cast<uint32_t>(h.size()));
  out += h;
  for (const Params<float>* p : {&c.params, &c.first_moments, &c.second_moments}) {
    append_tensors(out, *p);
  }
  if (!c.average.layers.empty()) append_tensors(out, c.average);
  append_tensors(out, c.best);
  OutputFile file(path);
  file.write(out);
  file.commit();
}

namespace {

// The regular file at `path` begins as a checkpoint does.
bool starts_as_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string start(kMagic.size(), '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  return in.gcount() == static_cast<std::streamsize>(kMagic.size()) && start == kMagic;
}

constexpr const char* kNotOne =
    ": not a training checkpoint (router train --checkpoint writes them)";

}  // namespace

bool may_hold_checkpoint(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return true;
  return starts_as_checkpoint(path);
}

void check_resumable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw IoError("cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw IoError("cannot read " + path + ": it is a directory");
  if (S_ISREG(st.st_mode) && !starts_as_checkpoint(path)) throw InputError(path + kNotOne);
}

Checkpoint read_checkpoint(const std::string& path, const Config& config) {
  const std::string bytes = read_file(path);
  if (bytes.size() < kMagic.size() + 4 ||
      std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
    throw InputError(path + kNotOne);
  }
  const uint32_t header_size = get_u32(bytes, kMagic.size());
  size_t at = kMagic.size() + 4;
  if (bytes.size() - at < header_size) throw InputError(path + ": the checkpoint is cut short");
  Checkpoint c;
  bool average = false;
  try {
    const auto h = nlohmann::json::parse(std::string_view(bytes).substr(at, header_size));
    c.fingerprint = h.at("fingerprint").get<std::string>();
    c.epoch = h.at("epoch").get<int>();
    c.step = h.at("step").get<int64_t>();
    c.best_epoch = h.at("best_epoch").get<int>();
    c.since_best = h.at("since_best").get<int>();
    average = h.at("average").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": a broken checkpoint header (" + e.what() + ")");
  }
  at += header_size;
  for (Params<float>* p : {&c.params, &c.first_moments, &c.second_moments}) {
    *p = zeros_like_config<float>(config);
    take_tensors(bytes, at, *p, path);
  }
  if (average) {
    c.average = zeros_like_config<float>(config);
    take_tensors(bytes, at, c.average, path);
  }
  c.best = zeros_like_config<float>(config);
  take_tensors(bytes, at, c.best, path);
  if (at != bytes.size()) {
    throw InputError(path + ": the checkpoint is of a model of another shape");
  }
  return c;
}

}  // namespace router
