#pragma once
// redist-run's options as one table, and what is derived from it: the --help text and the
// split of the command line between redist-run and Kokkos. parse() (options.hpp) accepts
// only the options of this table: neither can drift from the other.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redist_run {

/// One option of redist-run. parse() accepts only the options of this table (and takes a
/// value exactly for those with one); --help prints it: neither can drift from the other.
struct OptionInfo {
  std::string_view name;      ///< "--src"
  std::string_view alias;     ///< "-h", or empty
  std::string_view value;     ///< the value's placeholder; empty for a flag, [in brackets]
                              ///< when it may be left out (optional_value)
  std::string_view fallback;  ///< the default, as --help shows it
  std::string_view meaning;
};

/// Whether option o's value may be left out: it is then taken only when the next argument
/// is not an option (does not start with '-'); redist-run has no other positional words.
inline bool optional_value(const OptionInfo& o) {
  return !o.value.empty() && o.value.front() == '[';
}

/// Whether option o takes `next` (the argument after it, or null) as its value.
inline bool takes_value(const OptionInfo& o, const char* next) {
  if (o.value.empty() || next == nullptr) return false;
  return !optional_value(o) || next[0] != '-';
}

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
