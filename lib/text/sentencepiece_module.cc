// librouter_sentencepiece.so: SentencePiece behind the C interface of sentencepiece_module.h.
// Every SentencePiece type stays in this file; router sees opaque models, bytes and ids.
#include "text/sentencepiece_module.h"

#include <dlfcn.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using sentencepiece::SentencePieceProcessor;
using sentencepiece::util::Status;

const SentencePieceProcessor& processor(const RouterSpm* model) {
  return *reinterpret_cast<const SentencePieceProcessor*>(model);
}

void report(RouterSpmBytes error, void* context, const std::string& message) {
  error(context, message.data(), message.size());
}

// Runs `call` (which returns a Status), turning a failed Status or an exception into a report.
template <typename F>
int guarded(RouterSpmBytes error, void* context, F&& call) {
  try {
    const Status status = call();
    if (status.ok()) return 0;
    report(error, context, status.ToString());
  } catch (const std::exception& e) {
    report(error, context, e.what());
  } catch (...) {
    report(error, context, "unknown error");
  }
  return 1;
}

RouterSpm* parse(const char* serialized, size_t size, RouterSpmBytes error, void* context) {
  SentencePieceProcessor* sp = nullptr;
  const int failed = guarded(error, context, [&] {
    sp = new SentencePieceProcessor;
    return sp->LoadFromSerializedProto(std::string_view(serialized, size));
  });
  if (failed) {
    delete sp;
    return nullptr;
  }
  return reinterpret_cast<RouterSpm*>(sp);
}

void release(RouterSpm* model) { delete reinterpret_cast<SentencePieceProcessor*>(model); }

int encode(const RouterSpm* model, const char* text, size_t size, RouterSpmIds ids,
           RouterSpmBytes error, void* context) {
  std::vector<int> out;
  return guarded(error, context, [&] {
    Status s = processor(model).Encode(std::string_view(text, size), &out);
    if (s.ok()) ids(context, out.data(), out.size());
    return s;
  });
}

int sample_encode(const RouterSpm* model, const char* text, size_t size, float dropout,
                  RouterSpmIds ids, RouterSpmBytes error, void* context) {
  std::vector<int> out;
  return guarded(error, context, [&] {
    // nbest_size -1 with BPE: every merge is dropped with probability `dropout`.
    Status s = processor(model).SampleEncode(std::string_view(text, size), -1, dropout, &out);
    if (s.ok()) ids(context, out.data(), out.size());
    return s;
  });
}

int encode_pieces(const RouterSpm* model, const char* text, size_t size, RouterSpmBytes piece,
                  RouterSpmBytes error, void* context) {
  std::vector<std::string> out;
  return guarded(error, context, [&] {
    Status s = processor(model).Encode(std::string_view(text, size), &out);
    if (s.ok()) {
      for (const auto& p : out) piece(context, p.data(), p.size());
    }
    return s;
  });
}

int decode_pieces(const RouterSpm* model, const char* const* pieces, const size_t* sizes,
                  size_t count, RouterSpmBytes text, RouterSpmBytes error, void* context) {
  std::vector<std::string> in;
  std::string out;
  return guarded(error, context, [&] {
    in.reserve(count);
    for (size_t i = 0; i < count; ++i) in.emplace_back(pieces[i], sizes[i]);
    Status s = processor(model).Decode(in, &out);
    if (s.ok()) text(context, out.data(), out.size());
    return s;
  });
}

int piece_count(const RouterSpm* model) { return processor(model).GetPieceSize(); }

bool valid_id(const RouterSpm* model, int id) { return id >= 0 && id < piece_count(model); }

void piece(const RouterSpm* model, int id, RouterSpmBytes piece, void* context) {
  if (!valid_id(model, id)) return piece(context, "", 0);
  const std::string& p = processor(model).IdToPiece(id);
  piece(context, p.data(), p.size());
}

int is_control(const RouterSpm* model, int id) {
  return valid_id(model, id) && processor(model).IsControl(id);
}

int is_byte(const RouterSpm* model, int id) {
  return valid_id(model, id) && processor(model).IsByte(id);
}

int unk_id(const RouterSpm* model) { return processor(model).unk_id(); }

void set_random_seed(unsigned seed) { sentencepiece::SetRandomGeneratorSeed(seed); }

// Feeds the given texts to the trainer, in their order.
class TextIterator : public sentencepiece::SentenceIterator {
 public:
  TextIterator(const char* const* texts, const size_t* sizes, size_t count)
      : texts_(texts), sizes_(sizes), count_(count) {
    if (count_ > 0) value_.assign(texts_[0], sizes_[0]);
  }
  bool done() const override { return index_ >= count_; }
  void Next() override {
    if (++index_ < count_) value_.assign(texts_[index_], sizes_[index_]);
  }
  const std::string& value() const override { return value_; }
  Status status() const override { return {}; }

 private:
  const char* const* texts_;
  const size_t* sizes_;
  size_t count_;
  size_t index_ = 0;
  std::string value_;
};

// The trainer library is opened only when a vocabulary is learned: linked, it would be loaded
// and its symbols resolved by every command that merely encodes. The overload taking the option
// map; the name is its Itanium C++ ABI mangling.
using TrainFn = decltype(static_cast<Status (*)(const std::unordered_map<std::string, std::string>&,
                                                sentencepiece::SentenceIterator*, std::string*)>(
    &sentencepiece::SentencePieceTrainer::Train));
constexpr const char* kTrainerLibrary = "libsentencepiece_train.so.0";
constexpr const char* kTrainSymbol =
    "_ZN13sentencepiece20SentencePieceTrainer5TrainERKSt13unordered_mapINSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEES7_St4hashIS7_ESt8equal_toIS7_ESaISt4pairIKS7_S7_EEEPNS_"
    "16SentenceIteratorEPS7_";

// The trainer, or null with `why` set. A failure is not remembered: the next call tries again.
TrainFn trainer(std::string& why) {
  static TrainFn train = nullptr;  // callers hold the tokenizer's trainer lock
  if (train) return train;
  // Opening an open library only counts a reference; the handle is never closed.
  void* handle = dlopen(kTrainerLibrary, RTLD_NOW | RTLD_LOCAL);
  void* address = handle ? dlsym(handle, kTrainSymbol) : nullptr;
  if (!address) {
    const char* err = dlerror();
    why = "learning a vocabulary needs SentencePiece's trainer (Debian package "
          "libsentencepiece0, " + std::string(kTrainerLibrary) + "): " +
          (err ? err : "cannot open it");
    return nullptr;
  }
  train = reinterpret_cast<TrainFn>(address);
  return train;
}

int train(const char* const* texts, const size_t* sizes, size_t count, const char* const* options,
          size_t option_count, RouterSpmBytes model, RouterSpmBytes error, void* context) {
  std::string why;
  const TrainFn fn = trainer(why);
  if (!fn) {
    report(error, context, why);
    return 2;
  }
  return guarded(error, context, [&] {
    std::unordered_map<std::string, std::string> map;
    for (size_t i = 0; i < option_count; ++i) map[options[2 * i]] = options[2 * i + 1];
    TextIterator sentences(texts, sizes, count);
    std::string serialized;
    Status s = fn(map, &sentences, &serialized);
    if (s.ok()) model(context, serialized.data(), serialized.size());
    return s;
  });
}

constexpr RouterSpmApi kApi = {
    ROUTER_SPM_ABI, parse,    release,    encode, sample_encode, encode_pieces,   decode_pieces,
    piece_count,    piece,    is_control, is_byte, unk_id,       set_random_seed, train,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const RouterSpmApi* router_spm_api(void) {
  return &kApi;
}
