// SIGINT and SIGTERM end long work cleanly: handlers only set a flag, loops poll it and throw
// InterruptedError; unwinding then removes temporary output files (see OutputFile). SIGPIPE is
// ignored, so that a reader that goes away is a write error (exit 5) naming the output.
#pragma once

namespace router {

void install_signal_handlers();
bool interrupted();
// Throws InterruptedError if a signal arrived.
void check_interrupted();

}  // namespace router
