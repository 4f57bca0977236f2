// router-serve's one subcommand: `router serve` runs this executable with its own arguments
// (apps/commands.h says why it is apart).
#include "commands.h"

#include "common.h"

namespace router::app {

const Command kCommands[] = {{"serve", add_serve_command}};
const int kCommandCount = 1;

}  // namespace router::app
