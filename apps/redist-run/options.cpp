#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <redist/checked.hpp>
#include <redist/error.hpp>
#include <redist/tools/layout_options.hpp>
#include <redist/tools/machine_spec.hpp>
#include <redist/transform.hpp>

#include "command_line.hpp"

namespace redist_run {

void check_outputs(const Options& o) {
  for (const auto& [arg, path] : {std::pair{"--json", &o.json}, std::pair{"--dot", &o.dot}}) {
    if (path->empty()) continue;
    const std::string why = why_unwritable(*path);
    if (!why.empty()) throw UsageError{arg, "cannot write '" + *path + "': " + why};
  }
}

Options parse(const std::vector<char*>& args, int comm_size) {
  Options o;
  OptionReader line(option_table(), args);
  for (std::string a, v; line.next(a, v);) {
    try {
      if (o.take(a, v)) {  // --src, --dst, --region
      } else if (a == "--type") {
        o.type = parse_type(a, v);
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
      } else if (a == "--shared") {
        if (v != "src" && v != "dst" && v != "both")
          throw UsageError{a, "expected src, dst or both, got '" + v + "'"};
        o.shared_src = v != "dst";
        o.shared_dst = v != "src";
      } else if (a == "--transport") {
        o.transport = policy_option<TransportPolicy>(a, v);
      } else if (a == "--inter-node-schedule") {
        o.inter_node_schedule = policy_option<InterNodeSchedule>(a, v);
      } else if (a == "--machine") {
        o.machine = parse_machine(v, a);
        validate(*o.machine, false);
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
    } catch (const invalid_argument& e) {  // parse_error, and a machine's validate
      throw UsageError{a, strip(e.what(), a)};
    }
  }
  o.require();
  if (line.given("--diag") && !line.given("--uplo"))
    throw UsageError{"--diag", "needs --uplo (the diagonal of which triangle?)"};
  if (o.type == "int")
    for (const auto& [arg, v] : {std::pair{"--alpha", o.alpha}, std::pair{"--beta", o.beta}})
      if (v != std::trunc(v) || std::abs(v) > 1 << 30)
        throw UsageError{arg, "must be an integer for --type int, got " + std::to_string(v)};
  if (o.relabel != Relabel::off && o.dst.storage == StorageKind::scalapack)
    throw UsageError{"--relabel",
                     "needs tile storage on --dst (a relabeled grid is no "
                     "ScaLAPACK grid)"};
  o.check(comm_size, element_bytes(o.type), o.op);
  return o;
}

}  // namespace redist_run
