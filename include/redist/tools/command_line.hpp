#pragma once
/// @file tools/command_line.hpp
/// What the command-line tools (redist-run, redist-plan, redist-calibrate) share: an option
/// table from which both the parser and --help read, word-wrapped help, the values options
/// take (counts, reals), whether an output path can be written, and the JSON pieces of their
/// reports. Bad input is a UsageError naming the option and the value (exit status 2).

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

#include <redist/error.hpp>
#include <redist/execution_options.hpp>
#include <redist/index.hpp>

#include <sys/stat.h>

namespace redist::tools {

/// Bad input: the argument it came from and the message; exit status 2.
struct UsageError {
  std::string argument;
  std::string message;
};

/// One option of a tool. Its parser accepts only the options of its table (and takes a
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
/// is not an option (does not start with '-'); the tools have no other positional words.
inline bool optional_value(const OptionInfo& o) {
  return !o.value.empty() && o.value.front() == '[';
}

/// Whether option o takes `next` (the argument after it, or null) as its value.
inline bool takes_value(const OptionInfo& o, const char* next) {
  if (o.value.empty() || next == nullptr) return false;
  return !optional_value(o) || next[0] != '-';
}

/// The entry of `table` for `arg` (its name or alias), or null.
inline const OptionInfo* find_option(std::span<const OptionInfo> table, std::string_view arg) {
  for (const auto& o : table)
    if (arg == o.name || (!o.alias.empty() && arg == o.alias)) return &o;
  return nullptr;
}

/// A command line read option by option against a table: each option known, given once,
/// with its value when the table says it takes one.
///
///   OptionReader line(option_table, args);
///   for (std::string a, v; line.next(a, v);) { if (a == "--src") ... }
class OptionReader {
 public:
  /// `args`: the arguments after the program's name.
  OptionReader(std::span<const OptionInfo> table, std::vector<char*> args)
      : table_(table), args_(std::move(args)) {}

  /// The next option and its value ("" for a flag, or an optional value left out); false
  /// at the end.
  /// @throws UsageError naming the option when it is unknown, given more than once (the last
  /// of two would win silently; a script that repeats one is usually wrong), or missing its
  /// value.
  bool next(std::string& option, std::string& value) {
    if (k_ >= args_.size()) return false;
    option = args_[k_++];
    if (option.rfind("--", 0) == 0 && !seen_.insert(option).second)
      throw UsageError{option, "given more than once"};
    // Only the table's options: an option missing from --help is no option.
    const OptionInfo* info = find_option(table_, option);
    // An empty argument is named as '', not left out of the message.
    if (!info) throw UsageError{option.empty() ? "''" : option, "unknown option"};
    if (!info->value.empty() && !optional_value(*info) && k_ >= args_.size())
      throw UsageError{option, "missing value"};
    value = takes_value(*info, k_ < args_.size() ? args_[k_] : nullptr) ? args_[k_++] : "";
    return true;
  }
  /// Whether `option` was read.
  bool given(const std::string& option) const { return seen_.count(option) > 0; }

 private:
  std::span<const OptionInfo> table_;
  std::vector<char*> args_;
  std::size_t k_ = 0;
  std::set<std::string> seen_;
};

/// `text` word-wrapped to `width` columns; it starts at column `col`, and every line
/// after the first is indented to column `indent`.
inline std::string wrap(std::string_view text, std::size_t col, std::size_t indent,
                        std::size_t width = 80) {
  std::string out;
  for (std::size_t k = 0; k < text.size();) {
    const std::size_t end = std::min(text.find(' ', k), text.size());
    const std::string_view word = text.substr(k, end - k);
    if (k > 0) {
      if (col + 1 + word.size() > width) {
        out += "\n" + std::string(indent, ' ');
        col = indent;
      } else {
        out += ' ';
        ++col;
      }
    }
    out += word;
    col += word.size();
    k = end + 1;
  }
  return out;
}

/// The option lines of --help: each option, its value, its meaning wrapped from column 21,
/// "(required)" or "(default: ...)".
inline std::string option_help(std::span<const OptionInfo> table) {
  std::string s;
  constexpr std::size_t column = 21;  // where the meanings start
  for (const auto& o : table) {
    std::string head = "  " + std::string(o.name);
    if (!o.alias.empty()) head += ", " + std::string(o.alias);
    if (!o.value.empty()) head += " " + std::string(o.value);
    head += head.size() + 1 < column ? std::string(column - head.size(), ' ') : "  ";
    std::string meaning(o.meaning);
    if (o.fallback == "required")
      meaning += " (required)";
    else if (!o.fallback.empty())
      meaning += " (default: " + std::string(o.fallback) + ")";
    s += head + wrap(meaning, head.size(), column) + "\n";
  }
  return s;
}

/// A real number that is all of `v`, finite.
/// @throws UsageError naming `arg` and `v`.
inline double parse_real(const std::string& arg, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(x))
    throw UsageError{arg, "expected a finite real number, got '" + v + "'"};
  return x;
}

/// An integer that is all of `v`, at least `min` (64 bits).
/// @throws UsageError naming `arg` and `v`.
inline index_t parse_count(const std::string& arg, const std::string& v, index_t min) {
  index_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < min)
    throw UsageError{arg, "expected an integer >= " + std::to_string(min) + ", got '" + v + "'"};
  return x;
}

/// A policy option's value (auto, ...: execution_options.hpp's names for E).
/// @throws UsageError naming `option` and `value` with the choices.
template <class E>
E policy_option(const std::string& option, const std::string& value) {
  try {
    return parse_policy<E>(value, option);
  } catch (const invalid_argument&) {
    throw UsageError{option, "expected " + policy_choices<E>() + ", got '" + value + "'"};
  }
}

/// An element type's name, one of double, float, cdouble (complex double), cfloat
/// (complex float) and int.
/// @throws UsageError naming `arg` and `v` for any other.
inline std::string parse_type(const std::string& arg, const std::string& v) {
  if (v != "double" && v != "float" && v != "cdouble" && v != "cfloat" && v != "int")
    throw UsageError{arg,
                     "unknown type '" + v + "' (expected double, float, cdouble, cfloat or int)"};
  return v;
}

/// Bytes of one element of a type parse_type accepts.
inline index_t element_bytes(const std::string& type) {
  if (type == "float" || type == "int") return 4;
  if (type == "cdouble") return 16;
  return 8;  // double, cfloat
}

/// Why `path` cannot be written ("" if it can), without creating it: the file exists and is
/// writable, or its directory exists and is writable.
inline std::string why_unwritable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a directory";
    return ::access(path.c_str(), W_OK) == 0 ? "" : std::strerror(errno);
  }
  if (errno != ENOENT) return std::strerror(errno);
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) return "directory '" + dir + "': " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "directory '" + dir + "': " + std::strerror(errno);
  return "";
}

/// Strips the "redist: <argument>: " prefix of a redist error message.
inline std::string strip(const std::string& what, const std::string& argument) {
  const std::string prefix = "redist: " + argument + ": ";
  if (what.rfind(prefix, 0) == 0) return what.substr(prefix.size());
  if (what.rfind("redist: ", 0) == 0) return what.substr(8);
  return what;
}

/// `s` as a JSON string (quotes and backslashes escaped).
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// `v` as a JSON array of numbers.
template <class V>
std::string json_array(const std::vector<V>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t k = 0; k < v.size(); ++k) os << (k ? ", " : "") << v[k];
  os << "]";
  return os.str();
}

}  // namespace redist::tools
