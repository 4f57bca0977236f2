// router: the command-line tool. Parses arguments, hands work to the subcommands and maps every
// failure to one clear line on stderr and a documented exit code (README, "Exit codes").
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "base/errors.h"
#include "base/signals.h"
#include "commands.h"
#include "common.h"
#include "nn/build_info.h"

namespace {

// Start-up time is mostly page faults: on a small VM a fresh 4 KiB page costs ~12 us to fault in,
// and loading the built-in model touches ~1.5 MB of heap (~350 faults, ~4 ms, more than the
// model's arithmetic). So the heap grows in 4 MiB steps, and the part of it that is whole 2 MiB
// pages is offered to the kernel as transparent huge pages: one fault each instead of 512. A
// kernel without THP ignores the advice; nothing else changes.
void grow_heap_in_huge_pages() {
  constexpr size_t kPad = size_t{4} << 20, kHuge = size_t{2} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kPad));
  // Larger than what is left at the top of the heap, so malloc extends the heap now (by this +
  // kPad); freed at once, it merges back into the top chunk, which now starts where it did.
  void* volatile probe = std::malloc(256 << 10);
  const uintptr_t top = reinterpret_cast<uintptr_t>(probe) - 2 * sizeof(size_t);
  std::free(probe);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t lo = (top + kHuge - 1) & ~(kHuge - 1), hi = end & ~(kHuge - 1);
  if (hi <= lo || madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE) != 0) return;
  // A spacer up to the first huge page, never touched nor freed (address space, no memory), so
  // that the allocations that follow start inside it.
  if (lo - top > 64) {
    void* volatile spacer = std::malloc(lo - top - 4 * sizeof(size_t));
    (void)spacer;
  }
}

using router::app::Command;

std::vector<Command> commands() {
  return {router::app::kCommands, router::app::kCommands + router::app::kCommandCount};
}

// Runs `program` (Command::program) in this process's place with these arguments; returns only if
// it cannot be run. It is looked for next to this executable, then in ../libexec/router/.
void run_program(const char* program, char** argv) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path dir = error ? std::filesystem::path(".") : self.parent_path();
  for (const auto& candidate : {dir / program, dir / ".." / "libexec" / "router" / program}) {
    ::execv(candidate.c_str(), argv);
  }
  std::fprintf(stderr,
               "router: error: cannot run %s (looked next to %s and in ../libexec/router/): %s\n",
               program, self.c_str(), std::strerror(errno));
}

// Registers the subcommand that argv names, or all of them when it names none (for --help and
// for CLI11's message about an unknown one). Building every subcommand's options costs about
// as much as classifying a short email (1.4 million instructions, callgrind).
void add_commands(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") break;   // the top level's help lists every subcommand
    if (arg.empty() || arg[0] == '-') continue;  // the global flags take no value
    for (const auto& command : commands()) {
      if (arg == command.name) return command.add(app);
    }
    break;
  }
  for (const auto& command : commands()) command.add(app);
}

// Levenshtein distance, for "did you mean".
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The candidate nearest to `word`, if it is near enough to be a typo of it; else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

// The first argument that names no global flag: the subcommand, or what should have been one.
int command_index(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return i;
  }
  return 0;
}

// "did you mean --train?" for each flag on the command line that no option of the app or its
// subcommand has.
std::string flag_hints(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names = {"--help", "--version", "--verbose", "--quiet"};
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    }
  }
  std::string hints;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag.rfind("--", 0) != 0 || flag.size() == 2) continue;
    flag = flag.substr(0, flag.find('='));
    if (std::find(names.begin(), names.end(), flag) != names.end()) continue;
    const std::string near = nearest(flag, names);
    hints += near.empty() ? "unknown option " + flag + "\n"
                          : "did you mean " + near + " (not " + flag + ")?\n";
  }
  return hints;
}

// Logs go to stderr so that stdout carries only results.
void log_to_stderr() {
  auto logger = spdlog::stderr_color_mt("router");
  logger->set_pattern("router: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
}

// Batches change shape from step to step; keep freed blocks for reuse instead of returning
// them to the kernel and faulting fresh zeroed pages back in on the next step.
void tune_malloc() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  grow_heap_in_huge_pages();
}

struct GlobalFlags {
  int verbose = 0;
  bool quiet = false;
};

// --version, -v and -q, which every subcommand shares; the log level is set once they are parsed.
void add_global_flags(CLI::App& app, GlobalFlags& flags) {
  // The vector instructions decide how sums round, so a trained model is byte-identical only
  // to one trained by a build with the same set (docs/architecture.md, "Training").
  app.set_version_flag("--version",
                       "router 0.1.0\nvector instructions: " + router::vector_instructions());
  app.add_flag("-v,--verbose", flags.verbose, "More detail on stderr (repeat for debug)");
  app.add_flag("-q,--quiet", flags.quiet, "Only errors on stderr");
  app.parse_complete_callback([&flags] {
    if (flags.quiet) {
      spdlog::set_level(spdlog::level::err);
    } else if (flags.verbose >= 2) {
      spdlog::set_level(spdlog::level::trace);
    } else if (flags.verbose == 1) {
      spdlog::set_level(spdlog::level::debug);
    }
  });
}

// `router help [SUB]` becomes `router [SUB] --help` in `args`. An unknown command gets the
// nearest one named on stderr, and false.
bool known_command(std::vector<char*>& args) {
  static char help_flag[] = "--help";
  const int at = command_index(static_cast<int>(args.size()), args.data());
  if (at == 0) return true;
  std::vector<std::string> names;
  for (const auto& c : commands()) names.emplace_back(c.name);
  if (std::string_view(args[at]) == "help") {
    args.erase(args.begin() + at);
    args.push_back(help_flag);
  } else if (std::find(names.begin(), names.end(), args[at]) == names.end()) {
    const std::string near = nearest(args[at], names);
    std::fprintf(
        stderr,
        "router: usage: '%s' is not a router command%s\nRun 'router --help' for the commands.\n",
        args[at], near.empty() ? "" : ("; did you mean '" + near + "'?").c_str());
    return false;
  }
  return true;
}

// The program (Command::program) that runs the command argv names, or nullptr if it is ours.
const char* command_program(int argc, char** argv) {
  const int named = command_index(argc, argv);
  for (const auto& c : commands()) {
    if (named > 0 && c.program && std::string_view(argv[named]) == c.name) return c.program;
  }
  return nullptr;
}

// Parses and runs the subcommand; every failure becomes one line on stderr and an exit code.
int parse_and_run(CLI::App& app, int argc, char** argv) {
  using router::ExitCode;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const int sub = command_index(argc, argv);
    const std::string help =
        sub > 0 ? "router " + std::string(argv[sub]) + " --help" : "router --help";
    std::fprintf(stderr, "router: usage: %s\n%sRun '%s' for the options.\n", e.what(),
                 flag_hints(app, argc, argv).c_str(), help.c_str());
    return static_cast<int>(ExitCode::kUsage);
  } catch (const router::Error& e) {
    spdlog::error("{}", e.what());
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    spdlog::error("out of memory");
    return static_cast<int>(ExitCode::kFailure);
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return static_cast<int>(ExitCode::kFailure);
  }
  // Results lost to a full disk must not end in a silent 0.
  std::fflush(stdout);
  if (std::ferror(stdout)) {
    spdlog::error("cannot write to standard output");
    return static_cast<int>(ExitCode::kIo);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using router::ExitCode;
  log_to_stderr();
  router::install_signal_handlers();
  tune_malloc();

  CLI::App app{"router: an order-aware email-intent router (transformer encoder, from scratch)"};
  app.require_subcommand(1);
  GlobalFlags flags;
  add_global_flags(app, flags);
  std::vector<char*> args(argv, argv + argc);
  if (!known_command(args)) return static_cast<int>(ExitCode::kUsage);
  argc = static_cast<int>(args.size());
  args.push_back(nullptr);  // execv's end of arguments
  argv = args.data();
  if (const char* program = command_program(argc, argv)) {
    run_program(program, argv);
    return static_cast<int>(ExitCode::kFailure);
  }
  add_commands(app, argc, argv);
  return parse_and_run(app, argc, argv);
}
