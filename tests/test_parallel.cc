// parallel_for's WorkQueue: the tasks its producers hand out each run exactly once, on the
// producer when no thread is free for them, and a producer that throws does not leave its
// helpers waiting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/parallel.h"

namespace router {
namespace {

// Two producers, the second much slower: the first, done early, runs some of the second's
// tasks. Whoever runs them, each runs once and every producer's count is complete on return.
TEST(WorkQueue, EveryTaskRunsOnceAndTheFreeThreadHelps) {
  constexpr int kTasks = 40;
  std::vector<std::atomic<int>> runs(2 * kTasks);
  std::atomic<int> helped{0};
  std::atomic<bool> second_began{false};
  WorkQueue q(2);
  parallel_for(2, 2, [&](int s) {
    const auto self = std::this_thread::get_id();
    {
      const Producing producing(q);
      if (s == 1) second_began = true;
      // The first waits for the second to begin (on the other thread), so it has someone to help.
      const auto t0 = std::chrono::steady_clock::now();
      while (s == 0 && !second_began &&
             std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
        std::this_thread::yield();
      }
      for (int i = 0; i < kTasks; ++i) {
        if (s == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        q.push([&, s, i, self] {
          ++runs[s * kTasks + i];
          if (std::this_thread::get_id() != self) ++helped;
        });
      }
    }
    q.help();
  });
  for (int i = 0; i < 2 * kTasks; ++i) EXPECT_EQ(runs[i], 1) << "task " << i;
  EXPECT_GT(helped, 0) << "the producer done first should have run some of the other's tasks";
}

// With one thread no one waits for work: each task runs at once, inside push, in order.
TEST(WorkQueue, OnOneThreadTasksRunInsidePush) {
  std::vector<int> order;
  WorkQueue q(3);
  parallel_for(3, 1, [&](int s) {
    {
      const Producing producing(q);
      for (int i = 0; i < 3; ++i) {
        const size_t before = order.size();
        q.push([&, s, i] { order.push_back(10 * s + i); });
        EXPECT_EQ(order.size(), before + 1);
      }
    }
    EXPECT_EQ(q.help(), 0.0);
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 10, 11, 12, 20, 21, 22}));
}

// A producer that fails still ends, so the thread helping it returns; parallel_for rethrows.
TEST(WorkQueue, AFailingProducerReleasesItsHelpers) {
  WorkQueue q(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(2, 2,
                            [&](int s) {
                              {
                                const Producing producing(q);
                                if (s == 1) {
                                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                  q.push([&] { ++ran; });
                                  throw std::runtime_error("shard failed");
                                }
                              }
                              q.help();
                            }),
               std::runtime_error);
  EXPECT_LE(ran, 1);
}

}  // namespace
}  // namespace router
