#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace router {

namespace {

// Workers that live as long as the process. Starting threads costs tens of microseconds here,
// and training calls parallel_for several times per step. One job runs at a time; a call made
// while the pool is busy (from a task, or from another thread) starts its own threads instead.
class Pool {
 public:
  // Runs task(0..n-1) on the caller and `helpers` pool workers.
  void run(int n, int helpers, const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> lock(m_);
    while (static_cast<int>(workers_.size()) < helpers) {
      const int index = static_cast<int>(workers_.size());
      workers_.emplace_back([this, index] { loop(index); });
    }
    task_ = &task;
    n_ = n;
    helpers_ = helpers;
    pending_ = helpers;
    next_ = 0;
    error_ = nullptr;
    ++generation_;
    lock.unlock();
    work_.notify_all();
    drain();
    lock.lock();
    done_.wait(lock, [&] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  std::mutex& busy() { return busy_; }

 private:
  void loop(int index) {
    uint64_t seen = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      work_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (index >= helpers_) continue;  // not needed for this job
      lock.unlock();
      drain();
      lock.lock();
      if (--pending_ == 0) done_.notify_all();
    }
  }

  void drain() {
    for (int i; (i = next_.fetch_add(1)) < n_;) {
      try {
        (*task_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
        next_ = n_;  // stop handing out work
      }
    }
  }

  std::mutex busy_;  // held by the caller for the whole job
  std::mutex m_, error_mutex_;
  std::condition_variable work_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* task_ = nullptr;
  int n_ = 0, helpers_ = 0, pending_ = 0;
  std::atomic<int> next_{0};
  std::exception_ptr error_;
  uint64_t generation_ = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: workers may still wait when the process exits
  return *p;
}

}  // namespace

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void parallel_for(int n, int threads, const std::function<void(int)>& task) {
  if (threads <= 0) threads = hardware_threads();
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) task(i);
    return;
  }
  std::unique_lock<std::mutex> busy(pool().busy(), std::try_to_lock);
  if (!busy.owns_lock()) {
    for (int i = 0; i < n; ++i) task(i);
    return;
  }
  pool().run(n, threads - 1, task);
}

void WorkQueue::begin() {
  std::lock_guard<std::mutex> lock(m_);
  --unstarted_, ++running_;
}

void WorkQueue::end() {
  {
    std::lock_guard<std::mutex> lock(m_);
    --running_;
  }
  changed_.notify_all();
}

void WorkQueue::push(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (idle_ > static_cast<int>(tasks_.size())) {
      tasks_.push_back(std::move(task));
      changed_.notify_one();
      return;
    }
  }
  task();  // no thread is free for it: run it now, while its inputs are still in this cache
}

double WorkQueue::help() {
  double seconds = 0;
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    ++idle_;
    changed_.wait(lock, [&] { return !tasks_.empty() || running_ == 0 || unstarted_ > 0; });
    --idle_;
    if (tasks_.empty()) return seconds;
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    task();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lock.lock();
  }
}

}  // namespace router
