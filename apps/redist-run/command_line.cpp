#include "command_line.hpp"

#include <algorithm>
#include <cstddef>

namespace redist_run {
namespace {

constexpr OptionInfo options[] = {
    {"--src", "", "LAYOUT", "required", "source matrix layout"},
    {"--dst", "", "LAYOUT", "required", "target matrix layout"},
    {"--region", "", "REGION", "the largest common top-left block, transposed with --op t/c",
     "the elements to move"},
    {"--type", "", "TYPE", "double",
     "element type: double, float, cdouble (complex double), cfloat (complex float) or int"},
    {"--batch", "", "K", "0",
     "source tile columns per batch, >= 0; 0 cuts batches of varying width that keep every "
     "rank's buffers within 64 MiB where one column fits (REDIST_BATCH_BYTES; on one node "
     "only where messages lie whole in buffers, not in the node window's rings) and always "
     "within 2^30 bytes (REDIST_MAX_BUFFER_BYTES)"},
    {"--repeat", "", "N", "5", "timed executions of the same plan, >= 1"},
    {"--relabel", "", "[flat|nodes]", "off",
     "let redist choose which rank plays each target role: flat (or no value) keeps the most "
     "data on its rank; nodes first sends the fewest bytes between nodes, then keeps the most; "
     "the report shows the role -> rank map and the bytes between nodes before and after "
     "(tile storage on --dst only)"},
    {"--shared", "", "src|dst|both", "none",
     "put the source, the target or both in node-shared memory (node_shared_matrix, "
     "docs/node-shared.md): between ranks of a node, a node-shared source is then read in "
     "place (direct) and a node-shared target written by its senders (push)"},
    {"--transport", "", "auto|point-to-point|node-window|cross-memory", "auto",
     "how messages between ranks of one node travel (docs/transports.md): auto reads "
     "node-shared sources in place and long columns cross-memory where the kernel permits, "
     "else packs into the node window; cross-memory falls back to the node window, and says "
     "why, where it is not permitted; REDIST_TRANSPORT does the same"},
    {"--inter-node-schedule", "", "auto|all-at-once|caterpillar|shift", "auto",
     "how messages between nodes are ordered (docs/transports.md): all at once, or by steps "
     "paced in packets: the caterpillar's node pairs, or the shift (send to node i + d, "
     "receive from i - d); REDIST_INTER_NODE_SCHEDULE does the same"},
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
     "check every target element after the moves; exit 1 if any is wrong (the matrices "
     "always hold distinct values: the moves are timed on data, not zeros)"},
    {"--machine", "", "FILE|KEY=V,...", "none",
     "predict the move's time on this machine (cost_model.hpp: redist-calibrate's JSON "
     "file, or its keys inline) and report it beside the measured time"},
    {"--json", "", "FILE", "none", "write a JSON report (rank 0)"},
    {"--dot", "", "FILE", "none", "write rank 0's task graph in Graphviz format"},
    {"--help", "-h", "", "", "print this help and exit 0"},
    {"--kokkos-help", "", "", "", "print Kokkos' options (--kokkos-threads=N, ...) and exit 0"},
};

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
  STORAGE  tile       (default) a rank's tiles in column-major tile order, each
                      column-major (a partial tile padded to a whole tile's slot)
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

}  // namespace

std::span<const OptionInfo> option_table() { return options; }

const OptionInfo* find_option(std::string_view arg) {
  return redist::tools::find_option(options, arg);
}

std::string help_text() {
  return std::string(help_intro) + redist::tools::option_help(options) + std::string(help_examples);
}

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

}  // namespace redist_run
