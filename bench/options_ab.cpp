/// @file bench/options_ab.cpp
/// Two settings of REDIST_* variables on one move, run by run in one process: run i of A
/// and run i of B follow each other (their order swapped every pair), so both see the same
/// phase of a memory bandwidth that drifts by 2-3x within minutes on this project's VMs,
/// where two processes run one after the other (bench/floor_ab.py) do not. Block-cyclic
/// matrices in ScaLAPACK storage (or `--storage tile`: a tile per allocation), the whole
/// matrix moved; with `--target shared` the target in node-shared memory (node_shared.hpp:
/// pushed into, transport/push.hpp, unless a setting forces another transport).
///
///   mpirun -np P build/bench/options_ab M N mb nb Ps Qs mb nb Pt Qt \
///       --a "REDIST_X=1" --b "REDIST_X=0" [--pairs K] [--storage scalapack|tile] \
///       [--target private|shared]
///
/// Each Redistributor reads the environment when it is built (ExecutionOptions::
/// with_environment): A's variables are set, A is built, they are unset; then B's. Every
/// run is checked element by element once. Prints the median seconds (max over ranks) of
/// each, the median of the per-pair ratios B / A and how many pairs B won; exits 1 on a
/// wrong element.

#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace {

using namespace bench;

/// "NAME=VALUE NAME=VALUE" as pairs.
std::vector<std::pair<std::string, std::string>> assignments(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("options_ab: '" + w + "' is not NAME=VALUE");
    out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  return out;
}

/// Sets `settings` for as long as it lives (a Redistributor's construction).
struct Settings {
  std::vector<std::pair<std::string, std::string>> vars;
  explicit Settings(const std::string& text) : vars(assignments(text)) {
    for (const auto& [k, v] : vars) setenv(k.c_str(), v.c_str(), 1);
  }
  ~Settings() {
    for (const auto& [k, v] : vars) unsetenv(k.c_str());
  }
};

/// The move of the whole of `src` into `dst` under `settings`.
template <class Matrix>
redist::Redistributor<Matrix, Matrix> built_with(const std::string& settings,
                                                 const mpi::communicator& comm, const Matrix& src,
                                                 Matrix& dst, const Case& c) {
  const Settings set(settings);
  return {src, dst, comm, redist::Region::whole({c.M, c.N})};
}

/// A against B on matrices of type Matrix (ScaLAPACK storage, or a tile per allocation).
template <class Matrix>
int compare(const mpi::communicator& comm, const Case& c, const std::string& a_set,
            const std::string& b_set, int pairs, const char* storage, bool shared_target);

int run(int argc, char** argv, const mpi::communicator& comm) {
  std::vector<std::string> pos;
  std::string a_set, b_set, storage = "scalapack", target = "private";
  int pairs = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if ((k == "--a" || k == "--b" || k == "--pairs" || k == "--storage" || k == "--target") &&
        i + 1 < argc) {
      const std::string v = argv[++i];
      if (k == "--a") a_set = v;
      if (k == "--b") b_set = v;
      if (k == "--pairs") pairs = std::stoi(v);
      if (k == "--storage") storage = v;
      if (k == "--target") target = v;
    } else {
      pos.push_back(k);
    }
  }
  if (pos.size() != 10 || pairs < 1 || (storage != "scalapack" && storage != "tile") ||
      (target != "private" && target != "shared")) {
    if (comm.rank() == 0)
      std::fprintf(stderr,
                   "usage: options_ab M N mb nb Ps Qs mb nb Pt Qt --a \"VAR=V ...\" --b \"VAR=V "
                   "...\" [--pairs K >= 1] [--storage scalapack|tile] [--target "
                   "private|shared]\n");
    return 2;
  }
  const Case c = case_of(pos);
  const bool shared = target == "shared";
  if (storage == "tile")
    return compare<TileMatrix>(comm, c, a_set, b_set, pairs, "tile storage", shared);
  return compare<ScalapackMatrix>(comm, c, a_set, b_set, pairs, "ScaLAPACK storage", shared);
}

template <class Matrix>
int compare(const mpi::communicator& comm, const Case& c, const std::string& a_set,
            const std::string& b_set, int pairs, const char* storage, bool shared_target) {
  Matrix src(source_layout(c), {}, comm.rank());
  Matrix dst = shared_target ? redist::node_shared_matrix<double>(
                                   target_layout(c), typename Matrix::placement_type{}, comm)
                             : Matrix(target_layout(c), {}, comm.rank());
  fill_source(c, src);
  auto ra = built_with(a_set, comm, src, dst, c);
  auto rb = built_with(b_set, comm, src, dst, c);
  long bad = 0;
  for (auto* r : {&ra, &rb}) {
    fill_sentinel(dst);
    r->redistribute();
    bad += count_mismatches(comm, c, dst);
  }
  std::vector<double> ta, tb, ratio;
  int b_wins = 0;
  for (int i = 0; i < pairs; ++i) {
    const auto once = [&](auto& r) { return time_it(comm, 1, [&] { r.redistribute(); }).median(); };
    double x, y;
    if (i % 2 == 0) {
      x = once(ra);
      y = once(rb);
    } else {
      y = once(rb);
      x = once(ra);
    }
    ta.push_back(x);
    tb.push_back(y);
    ratio.push_back(y / x);
    b_wins += y < x;
  }
  if (comm.rank() == 0) {
    std::printf(
        "options_ab: %lld x %lld, %lldx%lld %dx%d -> %lldx%lld %dx%d, %s, %s target, %d ranks, "
        "%d pairs\n",
        static_cast<long long>(c.M), static_cast<long long>(c.N), static_cast<long long>(c.mbs),
        static_cast<long long>(c.nbs), c.ps, c.qs, static_cast<long long>(c.mbt),
        static_cast<long long>(c.nbt), c.pt, c.qt, storage,
        shared_target ? "node-shared" : "private", comm.size(), pairs);
    std::printf("  A [%s]  median %.4f s\n  B [%s]  median %.4f s\n", a_set.c_str(), median_of(ta),
                b_set.c_str(), median_of(tb));
    std::printf("  B / A  median of pairs %.3f, B faster in %d of %d pairs%s\n", median_of(ratio),
                b_wins, pairs, bad ? ", WRONG ELEMENTS" : "");
  }
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return run_program(argc, argv, "options_ab", run); }
