// redist-run: redistribute one matrix between two layouts given on the command line, time
// it, optionally verify every element, and report (human-readable on rank 0, JSON, dot).
//
//   mpirun -np 4 redist-run --src 8192x8192/256x256/bc:1x4 --dst 8192x8192/100x100/bc:2x2
//   redist-run --help          the layout grammar, every option with its default, examples
//   redist-run --kokkos-help   Kokkos' own options (--kokkos-threads=N, ...)
//
// The target region receives alpha * op(source region) + beta * target (op t: the
// region's R x C is the source extent, the target gets C x R), or its lower / upper
// trapezoid only; --count K moves K matrices of these layouts in one exchange.
//
// Exit status: 0 success (and --help), 1 verification failed, 2 bad input (one line on
// stderr, rank 0, on every rank alike: the ranks agree on their inputs before anything
// else), 3 a transfer made no progress for the progress timeout. See docs/redist-run.md.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/timer.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <redist/detail/agreement.hpp>
#include <redist/detail/checked.hpp>
#include <redist/detail/collectively.hpp>
#include <redist/plan/node_traffic.hpp>
#include <redist/redist.hpp>
#include <redist/relabel.hpp>
#include <redist/task_graph_graphviz.hpp>
#include <redist/tools/layout_report.hpp>
#include <redist/tools/layout_spec.hpp>
#include <redist/topology.hpp>

#include <sys/stat.h>

namespace {

using namespace redist;
using namespace redist::tools;

/// Which rank plays each target role (--relabel): as given, the most data kept on its rank
/// (best_relabeling), or the fewest bytes between nodes first (best_node_relabeling).
enum class Relabel { off, flat, nodes };

const char* relabel_name(Relabel r) {
  return r == Relabel::off ? "off" : r == Relabel::flat ? "flat" : "nodes";
}

/// Bad input: the argument it came from and the message; exit status 2.
struct UsageError {
  std::string argument;
  std::string message;
};

struct Options {
  LayoutSpec src, dst;
  std::optional<Region> region;
  std::string type = "double";
  index_t batch = 0;
  int repeat = 5;
  bool verify = false;
  Relabel relabel = Relabel::off;
  TransportPolicy transport = TransportPolicy::automatic;
  std::string json, dot;
  Op op = Op::none;
  double alpha = 1, beta = 0;
  Triangle triangle{};
  index_t count = 1;  ///< matrices moved in one exchange
};

const char* op_name(Op op) { return op == Op::none ? "n" : op == Op::transpose ? "t" : "c"; }
const char* uplo_name(Uplo u) { return u == Uplo::all ? "all" : u == Uplo::lower ? "l" : "u"; }

// --- the command line: one table of options, and the help built from it ---------------------

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

constexpr OptionInfo option_table[] = {
    {"--src", "", "LAYOUT", "required", "source matrix layout"},
    {"--dst", "", "LAYOUT", "required", "target matrix layout"},
    {"--region", "", "REGION", "the largest common top-left block, transposed with --op t/c",
     "the elements to move"},
    {"--type", "", "TYPE", "double",
     "element type: double, float, cdouble (complex double), cfloat (complex float) or int"},
    {"--batch", "", "K", "0",
     "source tile columns per batch, >= 0; 0 cuts batches of varying width so that every "
     "rank's buffers stay within 2^30 bytes"},
    {"--repeat", "", "N", "5", "timed executions of the same plan, >= 1"},
    {"--relabel", "", "[flat|nodes]", "off",
     "let redist choose which rank plays each target role: flat (or no value) keeps the most "
     "data on its rank; nodes first sends the fewest bytes between nodes, then keeps the most; "
     "the report shows the role -> rank map and the bytes between nodes before and after "
     "(tile storage on --dst only)"},
    {"--transport", "", "auto|point-to-point|node-window|cross-memory", "auto",
     "how messages between ranks of one node travel (docs/transports.md): auto reads "
     "node-shared sources in place and long columns cross-memory where the kernel permits, "
     "else packs into the node window; cross-memory falls back to the node window, and says "
     "why, where it is not permitted; REDIST_TRANSPORT does the same"},
    {"--op", "", "n|t|c", "n",
     "apply op to the source region: none, transpose, conjugate transpose; with t or c the "
     "region's RxC is the source extent and the target gets C x R"},
    {"--alpha", "", "A", "1",
     "the target receives alpha * op(source) + beta * target (integers for --type int)"},
    {"--beta", "", "B", "0", "see --alpha; 0 overwrites without reading the target"},
    {"--uplo", "", "l|u", "the whole region",
     "move only the lower or upper trapezoid of the target rectangle, as ScaLAPACK's "
     "pxtrmr2d"},
    {"--diag", "", "n|u", "n", "with --uplo: u leaves the diagonal out"},
    {"--count", "", "K", "1",
     "move K matrices of these layouts in one exchange, >= 1, as many as fit in memory"},
    {"--verify", "", "", "off",
     "fill, run, and check every target element; exit 1 if any is wrong"},
    {"--json", "", "FILE", "none", "write a JSON report (rank 0)"},
    {"--dot", "", "FILE", "none", "write rank 0's task graph in Graphviz format"},
    {"--help", "-h", "", "", "print this help and exit 0"},
    {"--kokkos-help", "", "", "", "print Kokkos' options (--kokkos-threads=N, ...) and exit 0"},
};

/// Whether option o's value may be left out: it is then taken only when the next argument
/// is not an option (does not start with '-'); redist-run has no other positional words.
bool optional_value(const OptionInfo& o) { return !o.value.empty() && o.value.front() == '['; }

/// Whether option o takes `next` (the argument after it, or null) as its value.
bool takes_value(const OptionInfo& o, const char* next) {
  if (o.value.empty() || next == nullptr) return false;
  return !optional_value(o) || next[0] != '-';
}

/// The table's entry for `arg` (its name or alias), or null.
const OptionInfo* find_option(std::string_view arg) {
  for (const auto& o : option_table)
    if (arg == o.name || (!o.alias.empty() && arg == o.alias)) return &o;
  return nullptr;
}

/// What redist-run does and the layout grammar: tools/layout_spec.hpp's parser, in words.
constexpr std::string_view help_intro =
    R"(redist-run: move a region of a distributed matrix from one layout into another,
time the move, optionally verify every element, and report (rank 0: text, JSON,
Graphviz).

Usage: mpirun -np N redist-run --src LAYOUT --dst LAYOUT [OPTION]...
       redist-run --help | --kokkos-help

LAYOUT := EXTENT/TILE/DIST[/STORAGE]   (numbers: decimal integers without sign)
  EXTENT   MxN     matrix rows x columns, >= 1
  TILE     MBxNB   tile rows x columns, >= 1; the last tile row or column may be
                   partial
  DIST     which rank owns tile (m, n), one of:
    bc:PxQ           2-D block-cyclic on a P x Q grid: rank (m mod P) * Q +
                     (n mod Q); bc:1xQ and bc:Px1 are 1-D
    bc:PxQ:KPxKQ     the same on super-tiles of KP x KQ tiles: rank
                     ((m / KP) mod P) * Q + ((n / KQ) mod Q)
    random:SEED      uniform random over all ranks, the same on every rank
    band:B:PBxQB:PxQ tiles with |m - n| < B block-cyclic on a PB x QB grid at
                     (m - n + B - 1, n), all other tiles on P x Q
    hetero:PxQ:W0,...,W(PQ-1)
                     1D-1D heterogeneous: tile rows and columns dealt in
                     proportion to P*Q powers, one per rank (row-major grid)
    hetero1d:rows:W0,...,W(R-1)  or  hetero1d:cols:W0,...,W(R-1)
                     tile rows (or columns) dealt to R ranks in proportion to
                     one power each
    synth:C0,...,C(R-1)[:full|lower|upper]
                     --dst only: built from the --src distribution on the same
                     tiling (Nesi et al. 2023, Algorithm 2) so that rank r owns
                     Cr tiles of the tile grid (or of its lower / upper tile
                     triangle) and the fewest tiles change owner
    bc2:PxQ:G        block-cyclic on P x Q, each rank's tiles spread over G
                     device allocations by tile row (m mod G); tile storage
    bc2:PxQ:GPxGQ    the same on GP x GQ devices by the two-level rule
  STORAGE  tile       (default) a rank's tiles packed back to back, column-major
           scalapack  ScaLAPACK's local column-major matrix, lld = max(1, LOCr);
                      bc only
  Powers W are decimals >= 0, not all zero. A distribution may use fewer ranks
  than mpirun starts (the others own no tiles), not more.

REGION := RxC[@I,J->K,L]
  R x C elements from source (I, J) to target (K, L); origins default to 0, and
  R or C may be 0 (nothing moves). Quote it in the shell: -> is a redirection.

Options (each takes its value as the next argument, and may be given once):
)";

/// Three runs that work as shown (tests/cli/run_cli_tests.sh runs them).
constexpr std::string_view help_examples = R"(
Options that start with --kokkos- go to Kokkos (--kokkos-help lists them).
Exit status: 0 success, 1 --verify found a wrong element, 2 bad input (one line
on stderr), 3 a peer made no progress for REDIST_PROGRESS_TIMEOUT seconds (the
stalled rank says which peer and how many bytes were outstanding).

Examples:
  1-D block-cyclic with 256x256 tiles into 2-D with 100x100 tiles, checked:
    mpirun -np 4 redist-run --src 2048x2048/256x256/bc:1x4 \
        --dst 2048x2048/100x100/bc:2x2 --verify

  2 * the transpose of a 100x50 block, into ScaLAPACK storage, JSON report:
    mpirun -np 2 redist-run --src 300x200/16x16/random:7 \
        --dst 200x300/10x10/bc:2x1/scalapack --region '100x50@10,0->0,20' \
        --op t --alpha 2 --verify --json report.json

  100 tiles per rank, the fewest moved, from a heterogeneous 2x2 grid:
    mpirun -np 4 redist-run --src 1000x1000/50x50/hetero:2x2:1,1,5,5 \
        --dst 1000x1000/50x50/synth:100,100,100,100 --verify

See docs/redist-run.md for the report, the JSON fields and every error.
)";

/// `text` word-wrapped to `width` columns; it starts at column `col`, and every line
/// after the first is indented to column `indent`.
std::string wrap(std::string_view text, std::size_t col, std::size_t indent,
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

/// The whole of `redist-run --help`.
std::string help_text() {
  std::string s(help_intro);
  constexpr std::size_t column = 21;  // where the meanings start
  for (const auto& o : option_table) {
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
  s += help_examples;
  return s;
}

/// The command line split before Kokkos sees it: --help, -h and --kokkos-help are
/// redist-run's (Kokkos would print its help for anything starting with --help); the
/// --kokkos-* options are Kokkos'; the rest, option values included, is parse()'s.
struct CommandLine {
  bool help = false;
  bool kokkos_help = false;
  std::vector<std::pair<char*, bool>> args;  ///< after argv[0]: (argument, is a --kokkos-*)
};

CommandLine split_command_line(int argc, char** argv) {
  CommandLine c;
  for (int k = 1; k < argc; ++k) {
    const std::string_view a = argv[k];
    const OptionInfo* info = find_option(a);
    if (info && info->name == "--help") {
      c.help = true;
    } else if (info && info->name == "--kokkos-help") {
      c.kokkos_help = true;
    } else if (a.rfind("--kokkos-", 0) == 0) {
      c.args.emplace_back(argv[k], true);
    } else {
      c.args.emplace_back(argv[k], false);
      // A value is never an option, even one that looks like --help.
      if (info && takes_value(*info, k + 1 < argc ? argv[k + 1] : nullptr))
        c.args.emplace_back(argv[++k], false);
    }
  }
  return c;
}

double parse_real(const std::string& arg, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(x))
    throw UsageError{arg, "expected a finite real number, got '" + v + "'"};
  return x;
}

/// Strips the "redist: <argument>: " prefix of a parse_error message.
std::string strip(const std::string& what, const std::string& argument) {
  const std::string prefix = "redist: " + argument + ": ";
  if (what.rfind(prefix, 0) == 0) return what.substr(prefix.size());
  if (what.rfind("redist: ", 0) == 0) return what.substr(8);
  return what;
}

index_t parse_count(const std::string& arg, const std::string& v, index_t min) {
  index_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < min)
    throw UsageError{arg, "expected an integer >= " + std::to_string(min) + ", got '" + v + "'"};
  return x;
}

/// Bytes of one element of a --type.
index_t element_bytes(const std::string& type) {
  if (type == "float" || type == "int") return 4;
  if (type == "cdouble") return 16;
  return 8;  // double, cfloat
}

/// Why `path` cannot be written ("" if it can), without creating it: the file exists and is
/// writable, or its directory exists and is writable.
std::string why_unwritable(const std::string& path) {
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

/// Rank 0 writes the reports: their paths must be writable before the run, not after it.
void check_outputs(const Options& o) {
  for (const auto& [arg, path] : {std::pair{"--json", &o.json}, std::pair{"--dot", &o.dot}}) {
    if (path->empty()) continue;
    const std::string why = why_unwritable(*path);
    if (!why.empty()) throw UsageError{arg, "cannot write '" + *path + "': " + why};
  }
}

/// Parses the command line of this rank. Ranks may be given different ones (MPMD, or a
/// script's mistake): agree_on_inputs compares them.
/// `args` are the arguments after the program name, without --help and what Kokkos took.
Options parse(const std::vector<char*>& args, int comm_size) {
  Options o;
  bool have_src = false, have_dst = false;
  std::set<std::string> seen;
  const std::size_t n = args.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::string a = args[k];
    // The last of two would win silently; a script that repeats one is usually wrong.
    if (a.rfind("--", 0) == 0 && !seen.insert(a).second)
      throw UsageError{a, "given more than once"};
    // Only the table's options: an option missing from --help is no option.
    const OptionInfo* info = find_option(a);
    if (!info) throw UsageError{a, "unknown option"};
    // The table says which options take a value (split_command_line skips it likewise).
    if (!info->value.empty() && !optional_value(*info) && k + 1 >= n)
      throw UsageError{a, "missing value"};
    const std::string v = takes_value(*info, k + 1 < n ? args[k + 1] : nullptr) ? args[++k] : "";
    try {
      if (a == "--src") {
        o.src = parse_layout(v, a);
        have_src = true;
      } else if (a == "--dst") {
        o.dst = parse_layout(v, a);
        have_dst = true;
      } else if (a == "--region") {
        o.region = parse_region(v, a);
      } else if (a == "--type") {
        o.type = v;
        if (o.type != "double" && o.type != "float" && o.type != "cdouble" && o.type != "cfloat" &&
            o.type != "int")
          throw UsageError{
              a, "unknown type '" + o.type + "' (expected double, float, cdouble, cfloat or int)"};
      } else if (a == "--batch") {
        o.batch = parse_count(a, v, 0);
      } else if (a == "--repeat") {
        o.repeat = static_cast<int>(std::min<index_t>(parse_count(a, v, 1), 1 << 30));
      } else if (a == "--verify") {
        o.verify = true;
      } else if (a == "--relabel") {
        if (v != "" && v != "flat" && v != "nodes")
          throw UsageError{a, "expected flat or nodes (or no value), got '" + v + "'"};
        o.relabel = v == "nodes" ? Relabel::nodes : Relabel::flat;
      } else if (a == "--transport") {
        try {
          o.transport = parse_transport_policy(v, "--transport");
        } catch (const invalid_argument&) {
          throw UsageError{
              a, "expected auto, point-to-point, node-window or cross-memory, got '" + v + "'"};
        }
      } else if (a == "--json") {
        o.json = v;
        if (o.json.empty()) throw UsageError{a, "empty file name"};
      } else if (a == "--dot") {
        o.dot = v;
        if (o.dot.empty()) throw UsageError{a, "empty file name"};
      } else if (a == "--op") {
        if (v == "n")
          o.op = Op::none;
        else if (v == "t")
          o.op = Op::transpose;
        else if (v == "c")
          o.op = Op::conj_transpose;
        else
          throw UsageError{a, "expected n, t or c, got '" + v + "'"};
      } else if (a == "--alpha") {
        o.alpha = parse_real(a, v);
      } else if (a == "--beta") {
        o.beta = parse_real(a, v);
      } else if (a == "--uplo") {
        if (v != "l" && v != "u") throw UsageError{a, "expected l or u, got '" + v + "'"};
        o.triangle.uplo = v == "l" ? Uplo::lower : Uplo::upper;
      } else if (a == "--diag") {
        if (v != "n" && v != "u") throw UsageError{a, "expected n or u, got '" + v + "'"};
        o.triangle.diag = v == "n" ? Diag::non_unit : Diag::unit;
      } else if (a == "--count") {
        o.count = parse_count(a, v, 1);  // how many fit in memory: check_count
      } else {
        // In the table but not handled here (--help is taken before parse): a bug.
        throw UsageError{a, "not implemented"};
      }
    } catch (const parse_error& e) {
      throw UsageError{a, strip(e.what(), a)};
    }
  }
  if (!have_src) throw UsageError{"--src", "missing (required)"};
  if (!have_dst) throw UsageError{"--dst", "missing (required)"};
  if (seen.count("--diag") && !seen.count("--uplo"))
    throw UsageError{"--diag", "needs --uplo (the diagonal of which triangle?)"};
  if (o.type == "int")
    for (const auto& [arg, v] : {std::pair{"--alpha", o.alpha}, std::pair{"--beta", o.beta}})
      if (v != std::trunc(v) || std::abs(v) > 1 << 30)
        throw UsageError{arg, "must be an integer for --type int, got " + std::to_string(v)};
  o.dst = with_source(o.dst, o.src);  // a synth target is built from --src (Algorithm 2)
  if (o.relabel != Relabel::off && o.dst.storage == StorageKind::scalapack)
    throw UsageError{"--relabel",
                     "needs tile storage on --dst (a relabeled grid is no "
                     "ScaLAPACK grid)"};
  for (const auto* s : {&o.src, &o.dst}) {
    const std::string arg = s == &o.src ? "--src" : "--dst";
    const index_t need = s->ranks(comm_size);
    if (need > comm_size)
      throw UsageError{arg, "distribution needs " + std::to_string(need) +
                                " ranks but the communicator has " + std::to_string(comm_size) +
                                " ('" + s->text + "')"};
    // Sizes that overflow (elements, bytes of the chosen type) are refused here, on every
    // rank alike, before any storage is planned.
    try {
      (void)make_layout(*s, comm_size);
      (void)redist::detail::checked_mul(
          redist::detail::checked_mul(s->extent.rows, s->extent.cols, "matrix elements"),
          element_bytes(o.type), "matrix bytes");
    } catch (const redist::error& e) {
      throw UsageError{arg, strip(e.what(), arg) + " ('" + s->text + "')"};
    }
  }
  const bool t = o.op != Op::none;
  if (!o.region)
    o.region = Region{{std::min(o.src.extent.rows, t ? o.dst.extent.cols : o.dst.extent.rows),
                       std::min(o.src.extent.cols, t ? o.dst.extent.rows : o.dst.extent.cols)},
                      {0, 0},
                      {0, 0}};
  try {
    validate_region(*o.region, make_shape(o.src), make_shape(o.dst), o.op);
  } catch (const region_error& e) {
    throw UsageError{"--region", to_string(*o.region) + (t ? " (transposed by --op)" : "") + ": " +
                                     strip(e.what(), "--region")};
  }
  return o;
}

// --- element values for --verify: distinct per element and exact in every type ----------

template <class T>
struct Values;
template <>
struct Values<double> {
  static double at(std::uint64_t k) {
    return static_cast<double>(k & ((std::uint64_t{1} << 53) - 1));
  }
  static double sentinel() { return -1.0; }
};
template <>
struct Values<float> {  // distinct for up to 2^24 elements
  static float at(std::uint64_t k) { return static_cast<float>(k & ((1u << 24) - 1)); }
  static float sentinel() { return -1.0f; }
};
template <>
struct Values<int> {  // distinct for up to 2^31 elements
  static int at(std::uint64_t k) { return static_cast<int>(k & 0x7fffffffu); }
  static int sentinel() { return -1; }
};
template <>
struct Values<std::complex<double>> {
  static std::complex<double> at(std::uint64_t k) {
    return {Values<double>::at(k), -Values<double>::at(k >> 53) - 2.0};
  }
  static std::complex<double> sentinel() { return {-1.0, -1.0}; }
};
template <>
struct Values<std::complex<float>> {  // distinct for up to 2^48 elements
  static std::complex<float> at(std::uint64_t k) {
    return {Values<float>::at(k), Values<float>::at(k >> 24)};
  }
  static std::complex<float> sentinel() { return {-1.0f, -1.0f}; }
};

/// The target's value before the move (--verify): unlike any source value, so that an
/// element written by mistake, or not written, shows.
template <class T>
T initial_value(std::uint64_t k) {
  if constexpr (std::is_same_v<T, int>)
    return -static_cast<int>(k & 0x3fffffffu) - 2;
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return -Values<T>::at(k) - T(2);
  else
    return T(-Values<typename T::value_type>::at(k) - 2, Values<typename T::value_type>::at(k));
}

template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Every way a message travels (task_graph.hpp), in the order reports list them.
constexpr Transport all_transports[] = {Transport::point_to_point, Transport::shared_window,
                                        Transport::direct, Transport::cross_memory};

/// The transports that carried a move's messages (`carried[k]` of all_transports[k]),
/// joined by '+': "cross-memory" when same-node peers read each other's sources.
std::string data_path(const std::vector<index_t>& carried) {
  std::string path;
  for (std::size_t k = 0; k < carried.size(); ++k)
    if (carried[k] > 0)
      path += (path.empty() ? "" : "+") + std::string(to_string(all_transports[k]));
  return path.empty() ? "none" : path;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <class V>
std::string json_array(const std::vector<V>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t k = 0; k < v.size(); ++k) os << (k ? ", " : "") << v[k];
  os << "]";
  return os.str();
}

/// What --relabel chose, for the report: elements of one matrix between nodes with the
/// target roles as given and as relabeled (split_transfers of the volume matrix).
struct RelabelChoice {
  index_t inter_node_before = 0;
  index_t inter_node_after = 0;
};

/// Runs, times, verifies and reports with concrete matrix types (o.count matrices of each
/// side). Returns the exit status.
template <class T, class SrcMatrix, class DstMatrix>
int run(const Options& o, const boost::mpi::communicator& comm, std::vector<SrcMatrix*> A,
        std::vector<DstMatrix*> B, const RelabelChoice& relabeled = {}) {
  const int me = comm.rank(), np = comm.size();
  const Region region = *o.region;
  const std::uint64_t src_cols = static_cast<std::uint64_t>(o.src.extent.cols);
  const std::uint64_t dst_cols = static_cast<std::uint64_t>(o.dst.extent.cols);
  const std::uint64_t src_size = static_cast<std::uint64_t>(o.src.extent.rows) * src_cols;
  // Matrix k's source element e: distinct over all k (as far as the type allows).
  const auto value = [&](std::size_t k, ElementIndex e) {
    return Values<T>::at(k * src_size + static_cast<std::uint64_t>(e.i) * src_cols +
                         static_cast<std::uint64_t>(e.j));
  };
  const auto initial = [&](ElementIndex e) {
    return initial_value<T>(static_cast<std::uint64_t>(e.i) * dst_cols +
                            static_cast<std::uint64_t>(e.j));
  };
  const Transform<T> transform{o.op, static_cast<T>(o.alpha), static_cast<T>(o.beta), o.triangle};
  const auto fill = [&] {
    for (std::size_t k = 0; k < A.size(); ++k) {
      A[k]->for_each_element([&](ElementIndex e, T& v) { v = value(k, e); });
      B[k]->for_each_element([&](ElementIndex e, T& v) { v = initial(e); });
    }
  };
  if (o.verify) fill();

  PlanOptions popt;
  popt.batch = o.batch;
  std::vector<Part<SrcMatrix, DstMatrix>> parts;
  for (std::size_t k = 0; k < A.size(); ++k) parts.push_back(Part{A[k], B[k], region});
  comm.barrier();
  boost::mpi::timer plan_timer;
  ExecutionOptions xopt;
  xopt.transport = o.transport;  // REDIST_TRANSPORT, when set, overrides it
  Redistributor<SrcMatrix, DstMatrix> R(parts, comm, transform, popt,
                                        xopt);  // throws on every rank
  const double plan_time =
      boost::mpi::all_reduce(comm, plan_timer.elapsed(), boost::mpi::maximum<double>());

  std::vector<double> times;
  for (int k = 0; k < o.repeat; ++k) {
    // With beta != 0 the target is read: each timed run starts from the known target.
    if (o.verify && transform.beta != T(0)) fill();
    comm.barrier();
    const double t0 = MPI_Wtime();
    R.redistribute();
    const double t = MPI_Wtime() - t0;
    times.push_back(boost::mpi::all_reduce(comm, t, boost::mpi::maximum<double>()));
  }
  const double t_min = *std::min_element(times.begin(), times.end());
  const double t_med = median(times);

  // Verification: every target element of every matrix; inside the region (or its
  // triangle) alpha * op(source) + beta * initial, outside untouched.
  index_t bad = 0, checked = 0;
  std::vector<std::string> first_bad;
  if (o.verify) {
    const ElementIndex d0 = region.dst_origin, s0 = region.src_origin;
    const Extents ext = target_extent(region, o.op);
    for (std::size_t k = 0; k < B.size(); ++k)
      B[k]->for_each_element([&](ElementIndex e, T& v) {
        const index_t x = e.i - d0.i, y = e.j - d0.j;
        const bool in =
            x >= 0 && y >= 0 && x < ext.rows && y < ext.cols && o.triangle.keeps(x, y, ext);
        T want = initial(e);
        if (in) {
          T a = value(k, o.op == Op::none ? ElementIndex{s0.i + x, s0.j + y}
                                          : ElementIndex{s0.i + y, s0.j + x});
          if constexpr (redist::detail::is_complex<T>::value)
            if (o.op == Op::conj_transpose) a = std::conj(a);
          want = transform.beta == T(0) ? T(transform.alpha * a)
                                        : T(transform.alpha * a + transform.beta * want);
        }
        ++checked;
        if (!(v == want)) {
          if (++bad <= 5)
            first_bad.push_back("rank " + std::to_string(me) + ": matrix " + std::to_string(k) +
                                " target (" + std::to_string(e.i) + ", " + std::to_string(e.j) +
                                ") = " + show(v) + ", expected " + show(want) +
                                (in ? "" : " (outside the region)"));
        }
      });
  }
  const index_t bad_total = boost::mpi::all_reduce(comm, bad, std::plus<index_t>());
  const index_t checked_total = boost::mpi::all_reduce(comm, checked, std::plus<index_t>());
  std::vector<std::vector<std::string>> all_bad;
  boost::mpi::gather(comm, first_bad, all_bad, 0);

  // Statistics, gathered to rank 0 (the node fields filled when the engine was wired).
  const NodeMap& nodes = node_map(comm);
  const PlanStats& s = R.plan().stats;
  const index_t esize = static_cast<index_t>(sizeof(T));
  std::vector<index_t> sent, recv, local, inter_sent, inter_recv, buffers, plans, schedules;
  boost::mpi::gather(comm, s.elements_sent * esize, sent, 0);
  boost::mpi::gather(comm, s.elements_received * esize, recv, 0);
  boost::mpi::gather(comm, s.elements_local * esize, local, 0);
  boost::mpi::gather(comm, s.elements_sent_inter_node * esize, inter_sent, 0);
  boost::mpi::gather(comm, s.elements_received_inter_node * esize, inter_recv, 0);
  boost::mpi::gather(comm, R.buffer_bytes(), buffers, 0);
  // The plan's own memory, beside the buffers: max_buffer_bytes bounds only the buffers.
  boost::mpi::gather(comm, s.plan_bytes, plans, 0);
  boost::mpi::gather(comm, s.schedule_bytes, schedules, 0);
  std::vector<index_t> cats(s.categories.begin(), s.categories.end()), cat_sum(9, 0);
  boost::mpi::reduce(comm, cats.data(), 9, cat_sum.data(), std::plus<index_t>(), 0);
  const index_t messages = boost::mpi::all_reduce(comm, s.messages_sent, std::plus<index_t>());
  // What carried the messages (each counted once, at its sender), and why not cross-memory.
  std::vector<index_t> carried;
  for (const Transport how : all_transports)
    carried.push_back(boost::mpi::all_reduce(comm, R.messages(how).first, std::plus<index_t>()));
  const std::string refused = R.cross_memory_refused();

  if (!o.dot.empty() && me == 0) {
    std::ofstream f(o.dot);
    write_graphviz(f, R.task_graph());
  }

  if (me != 0) return bad_total == 0 ? 0 : 1;

  index_t remote_max = 0;
  for (int r = 0; r < np; ++r) remote_max = std::max({remote_max, sent[r], recv[r]});
  const double bw_min = t_min > 0 ? static_cast<double>(remote_max) / t_min : 0.0;
  const double bw_med = t_med > 0 ? static_cast<double>(remote_max) / t_med : 0.0;
  const index_t buffer_max = *std::max_element(buffers.begin(), buffers.end());

  std::printf("redist-run: %d ranks, type %s (%zu bytes)\n", np, o.type.c_str(), sizeof(T));
  std::printf("  src     %s (%lldx%lld tiles, %d ranks)\n", to_string(o.src).c_str(),
              static_cast<long long>(A[0]->layout().tiles().rows),
              static_cast<long long>(A[0]->layout().tiles().cols), A[0]->layout().ranks());
  std::printf("  dst     %s (%lldx%lld tiles, %d ranks)\n", to_string(o.dst).c_str(),
              static_cast<long long>(B[0]->layout().tiles().rows),
              static_cast<long long>(B[0]->layout().tiles().cols), B[0]->layout().ranks());
  std::printf("  region  %s\n", to_string(region).c_str());
  if (o.op != Op::none || o.alpha != 1 || o.beta != 0 || o.triangle.masks())
    std::printf("  transform op %s, alpha %g, beta %g, uplo %s, diag %s\n", op_name(o.op), o.alpha,
                o.beta, uplo_name(o.triangle.uplo), o.triangle.diag == Diag::unit ? "u" : "n");
  if (o.count > 1)
    std::printf("  count   %lld matrices in one exchange\n", static_cast<long long>(o.count));
  if (o.op == Op::none && !o.triangle.masks())
    print_layout_report(stdout, layout_report(A[0]->layout(), B[0]->layout(), region, np));
  // Bytes of all o.count matrices from elements of one.
  const auto all_bytes = [&](index_t elements) { return elements * esize * o.count; };
  std::vector<int> rank_of_role;
  if constexpr (requires { B[0]->layout().distribution().rank_of_role(); })
    if (o.relabel != Relabel::off) rank_of_role = B[0]->layout().distribution().rank_of_role();
  if (o.relabel != Relabel::off) {
    std::printf("  relabel  %s (%s), target role -> rank:", relabel_name(o.relabel),
                o.relabel == Relabel::nodes ? "fewest bytes between nodes, then the most kept"
                                            : "the most kept on its rank");
    for (std::size_t r = 0; r < rank_of_role.size(); ++r)
      std::printf(" %zu->%d", r, rank_of_role[r]);
    std::printf("\n  relabel  bytes between nodes: %lld as given, %lld relabeled\n",
                static_cast<long long>(all_bytes(relabeled.inter_node_before)),
                static_cast<long long>(all_bytes(relabeled.inter_node_after)));
  }
  std::printf("  transport %s: messages", to_string(R.execution_options().transport));
  for (std::size_t k = 0; k < carried.size(); ++k)
    std::printf(" %s %lld", to_string(all_transports[k]), static_cast<long long>(carried[k]));
  if (!refused.empty()) std::printf(" (cross-memory refused: %s)", refused.c_str());
  std::printf("\n  categories (target tiles, all ranks):");
  for (int c = 0; c < 9; ++c) std::printf(" %d:%lld", c, static_cast<long long>(cat_sum[c]));
  std::printf("\n  nodes    %d, node of each rank:", nodes.nodes);
  for (int r = 0; r < np; ++r) std::printf(" %d", nodes.node_of_rank[static_cast<std::size_t>(r)]);
  // Inter-node: the part of sent / recv whose peer is on another node (plan/node_traffic.hpp).
  std::printf(
      "\n  rank      sent B      recv B     local B  inter-node sent B  inter-node recv B"
      "    buffer B      plan B  schedule B\n");
  for (int r = 0; r < np; ++r)
    std::printf("  %4d %11lld %11lld %11lld %18lld %18lld %11lld %11lld %11lld\n", r,
                static_cast<long long>(sent[r]), static_cast<long long>(recv[r]),
                static_cast<long long>(local[r]), static_cast<long long>(inter_sent[r]),
                static_cast<long long>(inter_recv[r]), static_cast<long long>(buffers[r]),
                static_cast<long long>(plans[r]), static_cast<long long>(schedules[r]));
  if (R.plan().batch > 0)
    std::printf("  messages %lld, batches %lld (batch = %lld source tile columns)\n",
                static_cast<long long>(messages), static_cast<long long>(R.plan().batches),
                static_cast<long long>(R.plan().batch));
  else  // widths vary: cut to the buffer budget (PlanOptions::max_buffer_bytes)
    std::printf("  messages %lld, batches %lld (of varying width, within the buffer budget)\n",
                static_cast<long long>(messages), static_cast<long long>(R.plan().batches));
  std::printf("  plan     %.6f s\n", plan_time);
  std::printf("  time     min %.6f s, median %.6f s over %d runs\n", t_min, t_med, o.repeat);
  std::printf("  bandwidth (Eq. 3) %.3f GB/s at min time, %.3f GB/s at median\n", bw_min * 1e-9,
              bw_med * 1e-9);
  std::printf("  buffers  %lld B max per rank\n", static_cast<long long>(buffer_max));
  std::printf(
      "  memory   plan %lld B + schedule %lld B max per rank (beside the buffers; "
      "max_buffer_bytes bounds the buffers only)\n",
      static_cast<long long>(*std::max_element(plans.begin(), plans.end())),
      static_cast<long long>(*std::max_element(schedules.begin(), schedules.end())));
  if (o.verify) {
    if (bad_total == 0) {
      std::printf("  verify   OK: %lld target elements checked\n",
                  static_cast<long long>(checked_total));
    } else {
      std::printf("  verify   FAILED: %lld of %lld target elements wrong\n",
                  static_cast<long long>(bad_total), static_cast<long long>(checked_total));
      int shown = 0;
      for (const auto& v : all_bad)
        for (const auto& line : v)
          if (shown++ < 10) std::fprintf(stderr, "redist-run: mismatch: %s\n", line.c_str());
    }
  }
  std::fflush(stdout);

  if (!o.json.empty()) {
    std::ofstream f(o.json);
    if (!f) {
      std::fprintf(stderr, "redist-run: --json: cannot write '%s'\n", o.json.c_str());
    } else {
      f.precision(9);
      f << "{\n"
        << "  \"ranks\": " << np << ",\n"
        << "  \"src\": " << json_string(to_string(o.src)) << ",\n"
        << "  \"dst\": " << json_string(to_string(o.dst)) << ",\n"
        << "  \"relabel\": {\"kind\": " << json_string(relabel_name(o.relabel));
      if (o.relabel != Relabel::off)
        f << ", \"rank_of_role\": " << json_array(rank_of_role)
          << ", \"inter_node_bytes\": {\"before\": " << all_bytes(relabeled.inter_node_before)
          << ", \"after\": " << all_bytes(relabeled.inter_node_after) << "}";
      f << "},\n"
        << "  \"transport\": " << json_string(data_path(carried)) << ",\n"
        << "  \"transport_policy\": " << json_string(to_string(R.execution_options().transport))
        << ",\n"
        << "  \"transport_messages\": {";
      for (std::size_t k = 0; k < carried.size(); ++k)
        f << (k ? ", " : "") << json_string(to_string(all_transports[k])) << ": " << carried[k];
      f << "},\n"
        << "  \"cross_memory_refused\": " << json_string(refused) << ",\n"
        << "  \"nodes\": " << nodes.nodes << ",\n"
        << "  \"node_of_rank\": " << json_array(nodes.node_of_rank) << ",\n"
        << "  \"region\": {\"rows\": " << region.extent.rows << ", \"cols\": " << region.extent.cols
        << ", \"src_origin\": [" << region.src_origin.i << ", " << region.src_origin.j
        << "], \"dst_origin\": [" << region.dst_origin.i << ", " << region.dst_origin.j
        << "], \"text\": " << json_string(to_string(region)) << "},\n"
        << "  \"type\": " << json_string(o.type) << ",\n"
        << "  \"op\": " << json_string(op_name(o.op)) << ",\n"
        << "  \"alpha\": " << o.alpha << ",\n"
        << "  \"beta\": " << o.beta << ",\n"
        << "  \"uplo\": " << json_string(uplo_name(o.triangle.uplo)) << ",\n"
        << "  \"diag\": " << json_string(o.triangle.diag == Diag::unit ? "u" : "n") << ",\n"
        << "  \"count\": " << o.count << ",\n"
        << "  \"element_bytes\": " << sizeof(T) << ",\n"
        << "  \"batch\": " << R.plan().batch << ",\n"
        << "  \"batches\": " << R.plan().batches << ",\n"
        << "  \"repeat\": " << o.repeat << ",\n"
        << "  \"categories\": " << json_array(cat_sum) << ",\n"
        << "  \"bytes\": {\"sent\": " << json_array(sent) << ", \"recv\": " << json_array(recv)
        << ", \"local\": " << json_array(local)
        << ", \"inter_node\": {\"sent\": " << json_array(inter_sent)
        << ", \"recv\": " << json_array(inter_recv) << "}},\n"
        << "  \"buffer_bytes\": " << json_array(buffers) << ",\n"
        << "  \"plan_bytes\": " << json_array(plans) << ",\n"
        << "  \"schedule_bytes\": " << json_array(schedules) << ",\n"
        << "  \"messages\": " << messages << ",\n"
        << "  \"plan_time_s\": " << plan_time << ",\n"
        << "  \"time_s\": {\"min\": " << t_min << ", \"median\": " << t_med
        << ", \"all\": " << json_array(times) << "},\n"
        << "  \"bandwidth\": {\"bytes_per_s_min_time\": " << bw_min
        << ", \"bytes_per_s_median_time\": " << bw_med << ", \"max_remote_bytes\": " << remote_max
        << "},\n"
        << "  \"verified\": " << (o.verify && bad_total == 0 ? "true" : "false") << ",\n"
        << "  \"verified_elements\": " << (o.verify ? checked_total : 0) << ",\n"
        << "  \"mismatches\": " << bad_total << "\n"
        << "}\n";
    }
  }
  return bad_total == 0 ? 0 : 1;
}

using TileMatrixLayout = Layout<SpecShape, SpecDistribution>;
/// Target tile layouts go through Relabeled (the identity unless --relabel), so the
/// relabeled case needs no further template instantiations.
using RelabeledLayout = Layout<SpecShape, Relabeled<SpecDistribution>>;
using GridMatrixLayout = Layout<SpecShape, BlockCyclic>;

/// Bytes of storage matrix m holds on its rank.
template <class M>
index_t matrix_bytes(const M& m) {
  index_t bytes = 0;
  for (const auto& a : m.allocations())
    bytes += static_cast<index_t>(a.span() * sizeof(typename M::value_type));
  return bytes;
}

/// What a part costs beyond its matrices' storage: the two matrix objects and their
/// allocation records, and the part's share of the plan and its copy programs (about 1.3 KiB
/// with 4 x 4 matrices of 2 x 2 tiles: bench/README.md, suite parts).
constexpr index_t part_overhead_bytes = 4096;

/// Whether --count matrices of each side fit in memory: each rank needs count x (its
/// storage of one source and one target matrix + part_overhead_bytes), and the ranks of a
/// node together at most its memory + swap (the bound TiledMatrix checks one matrix
/// against). Collective.
/// @throws UsageError naming --count, its value, the bytes needed and how many fit, on
/// every rank alike, if some node has too little.
void check_count(const Options& o, const boost::mpi::communicator& comm, index_t pair_bytes) {
  const index_t per_part = pair_bytes + part_overhead_bytes;
  // Saturated: a count whose bytes overflow 64 bits fits nowhere.
  const auto times = [](index_t a, index_t b) {
    index_t x = 0;
    return __builtin_mul_overflow(a, b, &x) ? INT64_MAX : x;
  };
  const boost::mpi::communicator node = redist::detail::node_communicator(comm);
  std::vector<index_t> parts_of;  // per part, on each rank of this node
  boost::mpi::all_gather(node, per_part, parts_of);
  index_t node_part = 0;
  for (const index_t b : parts_of) node_part = std::min(INT64_MAX - b, node_part) + b;
  const index_t need = times(o.count, node_part);
  const index_t memory = redist::detail::node_memory_bytes();
  const bool over = memory > 0 && need > memory;
  const int first =
      boost::mpi::all_reduce(comm, over ? comm.rank() : comm.size(), boost::mpi::minimum<int>());
  if (first == comm.size()) return;
  std::string message;
  if (comm.rank() == first)
    message = std::to_string(o.count) + " matrices of each side need " +
              (need == INT64_MAX ? "more than 2^63" : std::to_string(need)) +
              " bytes on one node (" + std::to_string(node_part) +
              " per matrix pair), more than its memory + swap (" + std::to_string(memory) +
              "); at most " + std::to_string(memory / node_part) + " fit";
  boost::mpi::broadcast(comm, message, first);
  throw UsageError{"--count", message};
}

template <class T>
int run_typed(const Options& o, const boost::mpi::communicator& comm) {
  const int me = comm.rank(), np = comm.size();
  // Building the matrices allocates on each rank alone; a rank that cannot (storage_error)
  // must not leave the others in the Redistributor's collectives: every rank throws the
  // lowest failing rank's error. `n` more matrices into `list`.
  const auto build = [&](auto& list, index_t n, const auto&... args) {
    using M = typename std::decay_t<decltype(list)>::value_type::element_type;
    redist::detail::collectively(comm, [&] {
      list.reserve(list.size() + static_cast<std::size_t>(n));
      for (index_t k = 0; k < n; ++k) list.push_back(std::make_unique<M>(args...));
    });
  };
  const auto pointers = [](auto& list) {
    std::vector<typename std::decay_t<decltype(list)>::value_type::element_type*> out;
    for (auto& m : list) out.push_back(m.get());
    return out;
  };
  // One matrix of each side first: what they hold says whether o.count of each fit
  // (check_count), before the others are built. `more_a` builds the other sources.
  const auto with_dst = [&](auto& A, const auto& more_a) {
    RelabelChoice choice;
    const auto finish = [&](auto& B, const auto&... b_args) {
      build(B, 1, b_args...);
      check_count(o, comm, matrix_bytes(*A.front()) + matrix_bytes(*B.front()));
      more_a();
      build(B, o.count - 1, b_args...);
      return run<T>(o, comm, pointers(A), pointers(B), choice);
    };
    // The four storage combinations; tile storage packs the owned tiles in one allocation.
    if (o.dst.storage == StorageKind::scalapack) {
      std::vector<std::unique_ptr<TiledMatrix<T, GridMatrixLayout, ScalapackColumnMajor<>>>> B;
      return finish(B, make_block_cyclic_layout(o.dst, "--dst"), ScalapackColumnMajor<>{}, me);
    }
    const TileMatrixLayout base = make_layout(o.dst, np);
    std::vector<int> perm(static_cast<std::size_t>(np));
    std::iota(perm.begin(), perm.end(), 0);
    // Every rank computes the same volumes and so the same permutation.
    if (o.relabel != Relabel::off) {
      const std::vector<index_t> volume =
          transfer_volumes(A.front()->layout(), base, *o.region, np);
      const std::vector<int>& nodes = node_map(comm).node_of_rank;
      choice.inter_node_before = split_transfers(volume, perm, nodes).inter_node;
      perm = o.relabel == Relabel::nodes ? best_node_relabeling(volume, nodes)
                                         : best_relabeling(volume, np);
      choice.inter_node_after = split_transfers(volume, perm, nodes).inter_node;
    }
    const RelabeledLayout relabeled{base.shape(),
                                    Relabeled<SpecDistribution>(base.distribution(), perm)};
    std::vector<std::unique_ptr<TiledMatrix<T, RelabeledLayout, SpecPlacement>>> B;
    return finish(B, relabeled, make_placement(o.dst), me);
  };
  if (o.src.storage == StorageKind::scalapack) {
    std::vector<std::unique_ptr<TiledMatrix<T, GridMatrixLayout, ScalapackColumnMajor<>>>> A;
    const GridMatrixLayout layout = make_block_cyclic_layout(o.src, "--src");
    build(A, 1, layout, ScalapackColumnMajor<>{}, me);
    return with_dst(A, [&] { build(A, o.count - 1, layout, ScalapackColumnMajor<>{}, me); });
  }
  std::vector<std::unique_ptr<TiledMatrix<T, TileMatrixLayout, SpecPlacement>>> A;
  const TileMatrixLayout layout = make_layout(o.src, np);
  const SpecPlacement placement = make_placement(o.src);
  build(A, 1, layout, placement, me);
  return with_dst(A, [&] { build(A, o.count - 1, layout, placement, me); });
}

int dispatch(const Options& o, const boost::mpi::communicator& comm) {
  if (o.type == "float") return run_typed<float>(o, comm);
  if (o.type == "cdouble") return run_typed<std::complex<double>>(o, comm);
  if (o.type == "cfloat") return run_typed<std::complex<float>>(o, comm);
  if (o.type == "int") return run_typed<int>(o, comm);
  return run_typed<double>(o, comm);
}

/// A fingerprint of a text (spec, type) for the agreement.
std::uint64_t text_item(const std::string& text) {
  return redist::detail::Hasher().add(std::string_view(text)).value();
}

/// Agreement before any other communication: every rank says whether it parsed its
/// command line; if any did not, every rank throws the lowest failing rank's UsageError
/// (naming the failing ranks when not all failed). Then the ranks compare their settings
/// (redist::detail::agree): any difference is an agreement_error on every rank. Collective.
void agree_on_inputs(const boost::mpi::communicator& world, const std::optional<UsageError>& bad,
                     const std::optional<Options>& o) {
  const int n = world.size();
  const int first =
      boost::mpi::all_reduce(world, bad ? world.rank() : n, boost::mpi::minimum<int>());
  if (first < n) {
    std::vector<int> failed_flags;
    boost::mpi::all_gather(world, bad ? 1 : 0, failed_flags);
    UsageError e = bad ? *bad : UsageError{};
    boost::mpi::broadcast(world, e.argument, first);
    boost::mpi::broadcast(world, e.message, first);
    std::vector<int> failed;
    for (int r = 0; r < n; ++r)
      if (failed_flags[static_cast<std::size_t>(r)]) failed.push_back(r);
    if (static_cast<int>(failed.size()) < n)
      e.message += " (on " + redist::detail::rank_list(failed) + " only)";
    throw e;
  }
  // Everything that decides what every rank does collectively; output paths are rank 0's.
  const Region& r = *o->region;
  redist::detail::agree(world, {
                                   {"--src", text_item(to_string(o->src))},
                                   {"--dst", text_item(to_string(o->dst))},
                                   {"--region", text_item(to_string(r))},
                                   {"--type", text_item(o->type)},
                                   value_item("--batch", o->batch),
                                   value_item("--repeat", o->repeat),
                                   value_item("--verify", o->verify),
                                   value_item("--relabel", static_cast<index_t>(o->relabel)),
                                   value_item("--op", static_cast<index_t>(o->op)),
                                   {"--alpha", redist::detail::bytes_fingerprint(o->alpha)},
                                   {"--beta", redist::detail::bytes_fingerprint(o->beta)},
                                   value_item("--uplo", static_cast<index_t>(o->triangle.uplo)),
                                   value_item("--diag", static_cast<index_t>(o->triangle.diag)),
                                   value_item("--count", o->count),
                               });
}

/// Prints one line on rank 0, with non-printable bytes escaped.
void report(const boost::mpi::communicator& world, const std::string& line) {
  if (world.rank() == 0) std::fprintf(stderr, "%s\n", escape_nonprintable(line).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  // Help before Kokkos sees the command line. A help request on any rank is one on every
  // rank (an MPMD launch may give it to one only): no rank goes on to wait for the others.
  const CommandLine line = split_command_line(argc, argv);
  const int asked = boost::mpi::all_reduce(world, (line.help ? 1 : 0) | (line.kokkos_help ? 2 : 0),
                                           boost::mpi::bitwise_or<int>());
  const bool help = (asked & 1) != 0, kokkos_help = (asked & 2) != 0;
  if (help) {
    if (world.rank() == 0) std::fputs(help_text().c_str(), stdout);
    std::fflush(stdout);
    if (!kokkos_help) return 0;
  }
  // Kokkos' arguments: the --kokkos-* options; for --kokkos-help that alone, on rank 0 only,
  // so that Kokkos prints its help once.
  static char kokkos_help_arg[] = "--kokkos-help";
  std::vector<char*> kokkos_args{argv[0]};
  if (kokkos_help) {
    if (world.rank() == 0) kokkos_args.push_back(kokkos_help_arg);
  } else {
    for (const auto& [arg, is_kokkos] : line.args)
      if (is_kokkos) kokkos_args.push_back(arg);
  }
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
    if (kokkos_help) return 0;
    // The --kokkos-* options Kokkos did not take (unknown ones) stay, in their place, for
    // parse() to name.
    const std::set<char*> left(kokkos_args.begin() + 1, kokkos_args.begin() + kokkos_argc);
    std::vector<char*> args;
    for (const auto& [arg, is_kokkos] : line.args)
      if (!is_kokkos || left.count(arg)) args.push_back(arg);
    // Local work first (parse; rank 0 also checks its output paths), then agreement, then
    // everything collective: a rank that fails to parse still takes part in the agreement.
    std::optional<Options> o;
    std::optional<UsageError> bad;
    try {
      o = parse(args, world.size());
      if (world.rank() == 0) check_outputs(*o);
    } catch (const UsageError& e) {
      bad = e;
    }
    try {
      agree_on_inputs(world, bad, o);
      status = dispatch(*o, world);
    } catch (const UsageError& e) {
      report(world,
             e.argument.empty() ? e.message : "redist-run: " + e.argument + ": " + e.message);
      status = 2;
    } catch (const redist::progress_timeout_error& e) {
      // Raised on the stalled rank only, whose peers may never answer again: it says so
      // itself and ends without MPI_Finalize or MPI_Abort, which would both wait for them
      // (through a dead link, forever); the launcher sees the exit status and ends the job.
      std::fprintf(stderr, "redist-run: rank %d: %s\n", world.rank(),
                   escape_nonprintable(strip(e.what(), "")).c_str());
      std::fflush(nullptr);
      std::_Exit(3);
    } catch (const redist::error& e) {
      // Agreement and planning errors are raised on every rank alike (same message).
      report(world, "redist-run: " + strip(e.what(), ""));
      status = 2;
    }
  }
  return status;
}
