#pragma once
// redist-run's options as one table (tools/command_line.hpp's OptionInfo), and what is derived
// from it: the --help text and the split of the command line between redist-run and Kokkos. parse()
// (options.hpp) accepts only the options of this table: neither can drift from the other.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <redist/tools/command_line.hpp>

namespace redist_run {

using redist::tools::OptionInfo;

/// redist-run's option table.
std::span<const OptionInfo> option_table();

/// The table's entry for `arg` (its name or alias), or null.
const OptionInfo* find_option(std::string_view arg);

/// The whole of `redist-run --help`.
std::string help_text();

/// The command line split before Kokkos sees it: --help, -h and --kokkos-help are
/// redist-run's (Kokkos would print its help for anything starting with --help); the
/// --kokkos-* options are Kokkos'; the rest, option values included, is parse()'s.
struct CommandLine {
  bool help = false;
  bool kokkos_help = false;
  std::vector<std::pair<char*, bool>> args;  ///< after argv[0]: (argument, is a --kokkos-*)
};

CommandLine split_command_line(int argc, char** argv);

}  // namespace redist_run
