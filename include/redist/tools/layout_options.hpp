#pragma once
/// @file tools/layout_options.hpp
/// The --src, --dst and --region options of the command-line tools, checked alike in
/// redist-run (on each rank) and redist-plan (for a job of P ranks): the ranks a layout
/// needs, sizes that overflow 64 bits, and the region, given or defaulted, inside both
/// matrices. Errors are UsageErrors naming the option and the value.

#include <algorithm>
#include <optional>
#include <string>

#include <redist/checked.hpp>
#include <redist/error.hpp>
#include <redist/index.hpp>
#include <redist/region.hpp>
#include <redist/tools/command_line.hpp>
#include <redist/tools/layout_spec.hpp>
#include <redist/transform.hpp>

namespace redist::tools {

/// Checks layout option `arg` (--src or --dst) for a job of `ranks` ranks and elements of
/// `element_bytes`: its distribution uses at most `ranks`, its layout can be made (a synth
/// target from its source), and its element and byte counts fit 64 bits. `job`: what has
/// the ranks, as the message names it ("the communicator", "--ranks").
/// @throws UsageError naming `arg`, the value and the spec.
inline void check_layout_option(const LayoutSpec& s, const std::string& arg, int ranks,
                                index_t element_bytes,
                                const std::string& job = "the communicator has") {
  const index_t need = s.ranks(ranks);
  if (need > ranks)
    throw UsageError{arg, "distribution needs " + std::to_string(need) + " ranks but " + job + " " +
                              std::to_string(ranks) + " ('" + s.text + "')"};
  try {
    (void)make_layout(s, ranks);
    (void)redist::detail::checked_mul(
        redist::detail::checked_mul(s.extent.rows, s.extent.cols, "matrix elements"), element_bytes,
        "matrix bytes");
  } catch (const redist::error& e) {
    throw UsageError{arg, strip(e.what(), arg) + " ('" + s.text + "')"};
  }
}

/// The region to move: `given`, or the largest common top-left block (transposed with a
/// transposing op), checked to fit both matrices.
/// @throws UsageError naming --region and the region.
inline Region region_option(const std::optional<Region>& given, const LayoutSpec& src,
                            const LayoutSpec& dst, Op op = Op::none) {
  const bool t = op != Op::none;
  const Region r = given
                       ? *given
                       : Region{{std::min(src.extent.rows, t ? dst.extent.cols : dst.extent.rows),
                                 std::min(src.extent.cols, t ? dst.extent.rows : dst.extent.cols)},
                                {0, 0},
                                {0, 0}};
  try {
    validate_region(r, make_shape(src), make_shape(dst), op);
  } catch (const region_error& e) {
    throw UsageError{"--region", to_string(r) + (t ? " (transposed by --op)" : "") + ": " +
                                     strip(e.what(), "--region")};
  }
  return r;
}

/// The --src, --dst and --region options of a tool, read and checked alike: a tool's options
/// derive from it, take() reads them among the others, require() and check() finish them.
struct LayoutOptions {
  LayoutSpec src, dst;
  std::optional<Region> region;

  /// Takes `option` with `value` if it is --src, --dst or --region; false for any other.
  /// @throws parse_error naming the option and the offending text.
  bool take(const std::string& option, const std::string& value) {
    if (option == "--src") {
      src = parse_layout(value, option);
      have_src_ = true;
    } else if (option == "--dst") {
      dst = parse_layout(value, option);
      have_dst_ = true;
    } else if (option == "--region") {
      region = parse_region(value, option);
    } else {
      return false;
    }
    return true;
  }
  /// After the last option: both layouts were given; a synth target is built from --src.
  /// @throws UsageError naming --src or --dst when missing.
  void require() {
    if (!have_src_) throw UsageError{"--src", "missing (required)"};
    if (!have_dst_) throw UsageError{"--dst", "missing (required)"};
    dst = with_source(dst, src);  // a synth target is built from --src (Algorithm 2)
  }
  /// Checks both layouts for a job of `ranks` ranks (check_layout_option; `job` as there)
  /// and defaults and checks the region (region_option).
  /// @throws UsageError naming the option.
  void check(int ranks, index_t element_bytes, Op op = Op::none,
             const std::string& job = "the communicator has") {
    check_layout_option(src, "--src", ranks, element_bytes, job);
    check_layout_option(dst, "--dst", ranks, element_bytes, job);
    region = region_option(region, src, dst, op);
  }

 private:
  bool have_src_ = false, have_dst_ = false;
};

}  // namespace redist::tools
