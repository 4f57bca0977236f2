// --checkpoint and --resume (train/checkpoint.h): a run continued from the state of any finished
// epoch ends with the same model, to the byte, as a run never stopped, with every option that
// draws randomness or keeps state on (dropout, word dropout, BPE-dropout, the moving average,
// local heads, masked-token pretraining), on another thread count; a checkpoint of another run is
// refused.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/rng.h"
#include "model/json_format.h"
#include "test_support.h"
#include "train/trainer.h"

namespace router {
namespace {

namespace fs = std::filesystem;

std::vector<Example> sorted_pairs(int n, uint64_t seed) {
  static const char* kWords[] = {"cake", "fee", "rider", "order", "box", "today", "late", "sweet"};
  Rng rng(seed);
  std::vector<Example> out;
  for (int i = 0; i < n; ++i) {
    const std::string a = kWords[rng.below(8)], b = kWords[rng.below(8)];
    Example e;
    e.text = "please " + a + " not " + b + " thanks";
    e.label = a < b ? "first" : "second";
    e.where = "pairs:" + std::to_string(i + 1);
    out.push_back(std::move(e));
  }
  return out;
}

TrainOptions options(int threads) {
  TrainOptions o;
  o.config.d_model = 16, o.config.n_heads = 2, o.config.n_layers = 1, o.config.d_ff = 32;
  o.config.max_len = 32, o.config.vocab_size = 300;
  o.epochs = 4, o.patience = 4, o.batch_size = 16, o.lr = 1e-2, o.seed = 5, o.threads = threads;
  o.dropout = 0.1, o.token_dropout = 0.1, o.bpe_dropout = 0.1, o.ema = 0.9, o.local_heads = 1;
  o.pretrain_epochs = 1;  // in the checkpoint's weights: a resumed run does not pretrain again
  return o;
}

TEST(Checkpoint, ResumingAfterAnyEpochGivesTheSameModel) {
  router::test::TempDir tmp("router_checkpoint");
  const auto train = sorted_pairs(300, 1), valid = sorted_pairs(80, 2);
  TrainOptions o = options(1);
  o.checkpoint = tmp.path("run.ck");
  // The checkpoint of each finished epoch, copied aside as the next epoch is reported.
  TrainHooks hooks;
  hooks.on_epoch = [&](const EpochReport& r) {
    if (r.epoch > 1) {
      fs::copy_file(o.checkpoint, tmp.path("after" + std::to_string(r.epoch - 1) + ".ck"));
    }
  };
  TrainResult full_result;
  const std::string full = model_to_json(train_model(train, valid, o, hooks, full_result));
  ASSERT_EQ(full_result.epochs_run, 4);
  for (int done = 1; done <= 4; ++done) {
    const std::string from = done < 4 ? tmp.path("after" + std::to_string(done) + ".ck")
                                      : o.checkpoint;  // the last: nothing left to run
    TrainOptions resumed = options(2);
    resumed.resume = from;
    TrainResult r;
    EXPECT_EQ(model_to_json(train_model(train, valid, resumed, {}, r)), full)
        << "resumed after epoch " << done;
    EXPECT_EQ(r.best_epoch, full_result.best_epoch) << done;
    EXPECT_EQ(r.epochs_run, 4) << done;
  }
}

TEST(Checkpoint, AnotherRunsCheckpointIsRefused) {
  router::test::TempDir tmp("router_checkpoint_other");
  const auto train = sorted_pairs(200, 1), valid = sorted_pairs(60, 2);
  TrainOptions o = options(1);
  o.epochs = 1;
  o.checkpoint = tmp.path("run.ck");
  TrainResult r;
  train_model(train, valid, o, {}, r);
  TrainOptions other = options(1);
  other.epochs = 1;
  other.lr = 2e-2;  // another recipe
  other.resume = o.checkpoint;
  EXPECT_THROW(train_model(train, valid, other, {}, r), InputError);
  TrainOptions more_data = options(1);
  more_data.epochs = 1;
  more_data.resume = o.checkpoint;
  EXPECT_THROW(train_model(sorted_pairs(201, 1), valid, more_data, {}, r), InputError);
  router::test::spit(tmp.path("junk.ck"), "not a checkpoint at all");
  more_data.resume = tmp.path("junk.ck");
  try {
    train_model(train, valid, more_data, {}, r);
    ADD_FAILURE() << "a file that is no checkpoint was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.ck: not a training checkpoint"), std::string::npos)
        << e.what();
  }
}

// --checkpoint never replaces someone's file: an existing file that is not a checkpoint is
// refused before training, and left as it was.
TEST(Checkpoint, AnExistingFileThatIsNoCheckpointIsNotReplaced) {
  router::test::TempDir tmp("router_checkpoint_cli");
  std::string data;
  for (const auto& e : sorted_pairs(60, 1)) {
    data += nlohmann::json{{"text", e.text}, {"label", e.label}}.dump() + "\n";
  }
  router::test::spit(tmp.path("d.jsonl"), data);
  router::test::spit(tmp.path("notes.txt"), "my notes\n");
  const auto r = router::test::run_router(
      "train --train " + router::test::quote(tmp.path("d.jsonl")) + " -o " +
          router::test::quote(tmp.path("m.json")) + " --epochs 1 --d-model 16 --heads 2 " +
          "--d-ff 16 --vocab-size 300 --checkpoint " + router::test::quote(tmp.path("notes.txt")),
      tmp.dir());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("the file exists and is not a training checkpoint"), std::string::npos)
      << r.err;
  EXPECT_EQ(router::test::slurp(tmp.path("notes.txt")), "my notes\n");
  EXPECT_FALSE(fs::exists(tmp.path("m.json")));
  // A --resume file that cannot be a checkpoint is refused before the data is read or the
  // tokenizer trained, naming it.
  const std::string base = "train --train " + router::test::quote(tmp.path("d.jsonl")) + " -o " +
                           router::test::quote(tmp.path("m.json")) + " --epochs 1 --resume ";
  const auto missing =
      router::test::run_router(base + router::test::quote(tmp.path("no.ck")), tmp.dir());
  EXPECT_EQ(missing.code, 5) << missing.err;
  EXPECT_NE(missing.err.find("no.ck"), std::string::npos) << missing.err;
  const auto notes =
      router::test::run_router(base + router::test::quote(tmp.path("notes.txt")), tmp.dir());
  EXPECT_NE(notes.code, 0);
  EXPECT_NE(notes.err.find("notes.txt: not a training checkpoint"), std::string::npos) << notes.err;
  for (const auto& r : {missing, notes}) {
    EXPECT_EQ(r.err.find("vocabulary"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp.path("m.json")));
}

}  // namespace
}  // namespace router
