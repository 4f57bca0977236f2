// SIGINT and SIGTERM end long work cleanly: handlers only set a flag, loops poll it and throw
// InterruptedError; unwinding then removes temporary output files (see AtomicFile).
#pragma once

namespace router {

void install_signal_handlers();
bool interrupted();
// Throws InterruptedError if a signal arrived.
void check_interrupted();

}  // namespace router
