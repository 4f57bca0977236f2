// Runs tasks 0..n-1 on up to `threads` threads. Which thread runs which task never changes a
// result: callers write each task's output to its own slot and combine slots in index order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace router {

// threads <= 0 means all hardware threads. Exceptions from tasks are rethrown (the first one).
void parallel_for(int n, int threads, const std::function<void(int)>& task);

int hardware_threads();

// Tasks that the tasks of one parallel_for hand out as they go (a training step's weight-gradient
// products), for whichever of its threads has finished its own task: the thread of a short shard
// helps the thread of a long one instead of waiting for it. Each handed-out task must write
// outputs of its own, so which thread runs it, and when, never changes a result.
class WorkQueue {
 public:
  // producers: how many tasks of the parallel_for hand out work (each calls begin and end once).
  explicit WorkQueue(int producers) : unstarted_(producers) {}

  void begin();  // a producer starts
  void end();    // ... and hands out nothing more
  // Queues the task if a thread waits for one in help, else runs it now, on the caller.
  void push(std::function<void()> task);
  // Runs queued tasks, and waits for more while producers are running and none is left to begin
  // (with producers left, the caller's thread is better used beginning one). Returns the seconds
  // spent running tasks. A task's exception is rethrown here, on the thread that ran it.
  double help();

 private:
  std::mutex m_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  int unstarted_, running_ = 0, idle_ = 0;  // idle_: threads waiting in help
};

// A producer's begin and end, end also when the producer throws (so helpers stop waiting).
class Producing {
 public:
  explicit Producing(WorkQueue& q) : q_(q) { q_.begin(); }
  ~Producing() { q_.end(); }
  Producing(const Producing&) = delete;
  Producing& operator=(const Producing&) = delete;

 private:
  WorkQueue& q_;
};

}  // namespace router
