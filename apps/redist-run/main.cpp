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
//
// This file: the order of the run (help, Kokkos, parse, agree, move) and the exit status.
// command_line: the option table and --help; options: parse; matrices: the matrices the
// specs name; move: one execution; report: its text and JSON.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <Kokkos_Core.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/redistributor.hpp>  // detail::agree and rank_list (detail/agreement.hpp)
#include <redist/transform.hpp>

#include "command_line.hpp"
#include "matrices.hpp"
#include "options.hpp"

namespace redist_run {
namespace {

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
                                   value_item("--shared", 2 * o->shared_src + o->shared_dst),
                                   value_item("--op", static_cast<index_t>(o->op)),
                                   {"--alpha", redist::detail::bytes_fingerprint(o->alpha)},
                                   {"--beta", redist::detail::bytes_fingerprint(o->beta)},
                                   value_item("--uplo", static_cast<index_t>(o->triangle.uplo)),
                                   value_item("--diag", static_cast<index_t>(o->triangle.diag)),
                                   value_item("--count", o->count),
                                   // Whether every rank gathers its load for the prediction.
                                   value_item("--machine", o->machine.has_value()),
                               });
}

/// Prints one line on rank 0, with non-printable bytes escaped.
void report(const boost::mpi::communicator& world, const std::string& line) {
  if (world.rank() == 0) std::fprintf(stderr, "%s\n", escape_nonprintable(line).c_str());
}

}  // namespace
}  // namespace redist_run

int main(int argc, char** argv) {
  using namespace redist_run;
  // Serialized: REDIST_PROGRESS=thread may give an execution a progress thread.
  boost::mpi::environment env(argc, argv, boost::mpi::threading::serialized);
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
