// Runs tasks 0..n-1 on up to `threads` threads. Which thread runs which task never changes a
// result: callers write each task's output to its own slot and combine slots in index order.
#pragma once

#include <functional>

namespace router {

// threads <= 0 means all hardware threads. Exceptions from tasks are rethrown (the first one).
void parallel_for(int n, int threads, const std::function<void(int)>& task);

int hardware_threads();

}  // namespace router
