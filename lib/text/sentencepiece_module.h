// The C interface of router's SentencePiece module (librouter_sentencepiece.so), a small shared
// object built next to router and opened on first use (text/sentencepiece.h). Only C types cross
// it: the module links SentencePiece and the C++ runtime SentencePiece needs, while router itself
// carries its own C++ runtime and starts without loading either. Results come back through
// callbacks, so that no memory allocated on one side is freed on the other.
#pragma once

#include <stddef.h>

extern "C" {

// Bumped whenever this interface changes; router refuses a module built for another one.
#define ROUTER_SPM_ABI 1

struct RouterSpm;  // a parsed SentencePiece model

// Receives bytes (a message, a piece, a serialized model), valid only during the call.
typedef void (*RouterSpmBytes)(void* context, const char* data, size_t size);
// Receives piece ids, valid only during the call.
typedef void (*RouterSpmIds)(void* context, const int* ids, size_t count);

// Functions that can fail return 0 on success; on failure they call `error` with the reason
// and return non-zero. None of them throws or aborts.
struct RouterSpmApi {
  int abi;  // ROUTER_SPM_ABI
  RouterSpm* (*parse)(const char* serialized, size_t size, RouterSpmBytes error, void* context);
  void (*release)(RouterSpm* model);
  int (*encode)(const RouterSpm* model, const char* text, size_t size, RouterSpmIds ids,
                RouterSpmBytes error, void* context);
  // BPE-dropout: every merge skipped with probability `dropout`, drawn from this thread's
  // generator (seeded on the thread's first draw, from set_random_seed).
  int (*sample_encode)(const RouterSpm* model, const char* text, size_t size, float dropout,
                       RouterSpmIds ids, RouterSpmBytes error, void* context);
  // Calls `piece` once per piece, in order.
  int (*encode_pieces)(const RouterSpm* model, const char* text, size_t size,
                       RouterSpmBytes piece, RouterSpmBytes error, void* context);
  int (*decode_pieces)(const RouterSpm* model, const char* const* pieces, const size_t* sizes,
                       size_t count, RouterSpmBytes text, RouterSpmBytes error, void* context);
  int (*piece_count)(const RouterSpm* model);
  // Ids outside 0..piece_count-1 give an empty piece, and 0 from the predicates.
  void (*piece)(const RouterSpm* model, int id, RouterSpmBytes piece, void* context);
  int (*is_control)(const RouterSpm* model, int id);
  int (*is_byte)(const RouterSpm* model, int id);
  int (*unk_id)(const RouterSpm* model);
  void (*set_random_seed)(unsigned seed);
  // Learns a model from `texts` (each one sentence, in order) with SentencePiece's trainer,
  // configured by `options` (key, value, key, value, ...: 2 * option_count strings). Returns 2
  // (not 1) when the trainer library itself cannot be opened.
  int (*train)(const char* const* texts, const size_t* sizes, size_t count,
               const char* const* options, size_t option_count, RouterSpmBytes model,
               RouterSpmBytes error, void* context);
};

// The module's one exported symbol.
const RouterSpmApi* router_spm_api(void);
}
