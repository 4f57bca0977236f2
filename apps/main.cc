// router: the command-line tool. Parses arguments, hands work to the subcommands and maps every
// failure to one clear line on stderr and a documented exit code (README, "Exit codes").
#include <malloc.h>

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common.h"
#include "errors.h"
#include "signals.h"

int main(int argc, char** argv) {
  using router::ExitCode;
  // Logs go to stderr so that stdout carries only results.
  auto logger = spdlog::stderr_color_mt("router");
  logger->set_pattern("router: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  router::install_signal_handlers();
  // Batches change shape from step to step; keep freed blocks for reuse instead of returning
  // them to the kernel and faulting fresh zeroed pages back in on the next step.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);

  CLI::App app{"router: an order-aware email-intent router (transformer encoder, from scratch)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "router 0.1.0");
  int verbose = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "More detail on stderr (repeat for debug)");
  app.add_flag("-q,--quiet", quiet, "Only errors on stderr");
  app.parse_complete_callback([&] {
    if (quiet) {
      spdlog::set_level(spdlog::level::err);
    } else if (verbose >= 2) {
      spdlog::set_level(spdlog::level::trace);
    } else if (verbose == 1) {
      spdlog::set_level(spdlog::level::debug);
    }
  });
  router::app::add_classify_command(app);
  router::app::add_batch_command(app);
  router::app::add_eval_command(app);
  router::app::add_train_command(app);
  router::app::add_info_command(app);
  router::app::add_positions_command(app);
  router::app::add_demo_command(app);
  router::app::add_explain_command(app);
  router::app::add_tokenize_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "router: usage: %s\nRun 'router --help' for the options.\n", e.what());
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
  std::fflush(stdout);
  if (std::ferror(stdout)) {
    spdlog::error("cannot write to standard output");
    return static_cast<int>(ExitCode::kIo);
  }
  return 0;
}
