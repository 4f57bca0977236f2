// SIGINT and SIGTERM end long work cleanly: handlers only set a flag, loops poll it and throw
// InterruptedError (or, in training, stop and keep the best model so far); unwinding then removes
// temporary output files (see OutputFile). A second signal stops the process at once (exit 130):
// the temporary files registered below are removed first, so nothing half-written is left.
// SIGPIPE is ignored, so that a reader that goes away is a write error (exit 5) naming the
// output.
#pragma once

namespace router {

void install_signal_handlers();
bool interrupted();
// A temporary file for the second signal to remove (at most 8 at a time; a longer path, or a
// ninth file, is left to the normal unwinding). Returns a slot for unregister_temp_file, or -1.
int register_temp_file(const char* path);
void unregister_temp_file(int slot);
// Throws InterruptedError if a signal arrived.
void check_interrupted();

}  // namespace router
