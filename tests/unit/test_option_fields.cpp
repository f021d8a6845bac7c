// Field tables of the options structs (option_fields.hpp): the environment, validation,
// agreement items and reports all come from one table per struct, and the docs' option
// tables are checked against it, so that a field added without docs fails here.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <redist/detail/agreement.hpp>
#include <redist/distributions/block_cyclic.hpp>
#include <redist/execution_options.hpp>
#include <redist/layout.hpp>
#include <redist/message_buffering.hpp>
#include <redist/option_fields.hpp>
#include <redist/placements/scalapack_column_major.hpp>
#include <redist/placements/tile_allocations.hpp>
#include <redist/plan/reference_plan.hpp>
#include <redist/tile_shapes/uniform_axis.hpp>
#include <redist/tiled_matrix.hpp>

#include <doctest/doctest.h>

#include "../support/scoped_env.hpp"
#include "unit_test_support.hpp"

namespace {

using namespace redist;
using redist::test::ScopedEnv;

/// A test-only options struct: what a new struct (or a new field) needs, and no more.
struct Knobs {
  index_t size = 64;
  bool fast = false;
  double wait = 1.5;
  index_t cap = 1000;
};

}  // namespace

template <>
struct redist::detail::OptionFields<Knobs> {
  static constexpr auto fields = std::tuple{
      option_field("Knobs::size", &Knobs::size, "REDIST_TEST_KNOB_SIZE",
                   Integer{1, 4096, "size must be positive", "size above the largest, LIMIT"}),
      option_field("Knobs::fast", &Knobs::fast, "REDIST_TEST_KNOB_FAST", Flag{}),
      option_field("Knobs::wait", &Knobs::wait, nullptr, Seconds{"wait must be >= 0"}, false),
      option_field("Knobs::cap", &Knobs::cap, "REDIST_TEST_KNOB_CAP",
                   Integer{1, 1 << 20, "cap must be positive"}, true, EnvRule::cap),
  };
};

namespace {

/// The rows of the markdown table after "<!-- option table: `name` ... -->" in `file`
/// (docs/), header and separator left out; each row as its cells, trimmed.
std::vector<std::vector<std::string>> doc_table(const std::string& file, const std::string& name) {
  std::ifstream in(std::string(REDIST_SOURCE_DIR) + "/docs/" + file);
  REQUIRE_MESSAGE(in, "cannot read docs/", file);
  std::string line;
  const std::string marker = "<!-- option table: " + name + " ";
  while (std::getline(in, line) && line.rfind(marker, 0) != 0) {
  }
  REQUIRE_MESSAGE(in, "docs/", file, " has no line starting '", marker, "'");
  std::vector<std::vector<std::string>> rows;
  for (int k = 0; std::getline(in, line) && line.rfind("|", 0) == 0; ++k) {
    if (k < 2) continue;  // header, separator
    std::vector<std::string> cells;
    std::size_t from = 1;
    for (std::size_t bar; (bar = line.find('|', from)) != std::string::npos; from = bar + 1) {
      std::string cell = line.substr(from, bar - from);
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    rows.push_back(cells);
  }
  return rows;
}

/// The first cells of Options' docs rows as its table renders them, joined by " | ":
/// member, default and, `with_env`, the variable.
template <class Options>
std::vector<std::string> rendered_rows(bool with_env) {
  const Options defaults{};
  std::vector<std::string> rows;
  detail::for_each_field<Options>([&](const auto& f) {
    std::string row =
        "`" + std::string(f.member_name()) + "` | " + f.kind.doc_default(defaults.*f.member);
    if (with_env) row += " | " + (f.env != nullptr ? f.kind.doc_env(f.env) : std::string());
    rows.push_back(row);
  });
  return rows;
}

template <class Options>
void check_doc_table(const std::string& name, bool with_env) {
  const auto docs = doc_table("quickstart.md", name);
  const auto code = rendered_rows<Options>(with_env);
  CHECK_MESSAGE(docs.size() == code.size(), "docs/quickstart.md lists ", docs.size(), " ", name,
                " members, its field table ", code.size());
  const std::size_t cells = with_env ? 3 : 2;
  for (std::size_t k = 0; k < docs.size() && k < code.size(); ++k) {
    std::string first;
    for (std::size_t c = 0; c < cells && c < docs[k].size(); ++c)
      first += (c ? " | " : "") + docs[k][c];
    CHECK(first == code[k]);
  }
}

std::string message(auto&& f) { return test::message_of<invalid_argument>(f); }

}  // namespace

TEST_SUITE("option fields") {
  TEST_CASE("a variable replaces the value in code, or caps it; unset leaves it") {
    const ScopedEnv size("REDIST_TEST_KNOB_SIZE", nullptr);
    const ScopedEnv fast("REDIST_TEST_KNOB_FAST", nullptr);
    const ScopedEnv cap("REDIST_TEST_KNOB_CAP", nullptr);
    Knobs k;
    k.size = 7;
    k.cap = 50;
    CHECK(detail::apply_environment(k).size == 7);
    {
      const ScopedEnv s("REDIST_TEST_KNOB_SIZE", "300");
      const ScopedEnv f("REDIST_TEST_KNOB_FAST", "1");
      const ScopedEnv c("REDIST_TEST_KNOB_CAP", "20");
      const Knobs e = detail::apply_environment(k);
      CHECK(e.size == 300);
      CHECK(e.fast);
      CHECK(e.cap == 20);  // lower than the code's 50
      CHECK(e.wait == 1.5);
    }
    {
      const ScopedEnv c("REDIST_TEST_KNOB_CAP", "90");
      CHECK(detail::apply_environment(k).cap == 50);  // the code's lower limit is kept
    }
  }

  TEST_CASE("a malformed variable is refused naming it and its value") {
    for (const char* bad : {"0", "x", "", "-3", "4097"}) {
      CAPTURE(bad);
      const ScopedEnv s("REDIST_TEST_KNOB_SIZE", bad);
      const std::string m = message([] { (void)detail::apply_environment(Knobs{}); });
      CHECK(m.find(std::string("REDIST_TEST_KNOB_SIZE = ") + bad) != std::string::npos);
    }
    const ScopedEnv f("REDIST_TEST_KNOB_FAST", "yes");
    CHECK(message([] {
            (void)detail::apply_environment(Knobs{});
          }).find("REDIST_TEST_KNOB_FAST = yes") != std::string::npos);
  }

  TEST_CASE("validation names the field, the value and, above the range, the largest") {
    CHECK_NOTHROW(detail::validate_options(Knobs{}));
    Knobs k;
    k.size = 0;
    CHECK(message([&] { detail::validate_options(k); }) ==
          "redist: size must be positive: Knobs::size = 0");
    k.size = 4097;
    CHECK(message([&] { detail::validate_options(k); }) ==
          "redist: size above the largest, LIMIT = 4096: Knobs::size = 4097");
    k = {};
    k.wait = -0.5;
    CHECK(message([&] { detail::validate_options(k); }) ==
          "redist: wait must be >= 0: Knobs::wait = -0.5");
  }

  TEST_CASE("agreement items and words: one per field, in order, values shown") {
    Knobs k;
    k.fast = true;
    const auto items = detail::option_items(k);
    REQUIRE(items.size() == 4);
    CHECK(items[0].name == "Knobs::size");
    CHECK(items[0].value == 64);
    CHECK(items[1].value == 1);
    CHECK(items[2].name == "Knobs::wait (us)");
    CHECK(items[2].value == 1500000);
    const auto words = detail::option_words(k);
    static_assert(words.size() == detail::option_count<Knobs>);
    for (std::size_t i = 0; i < items.size(); ++i) {
      CHECK(items[i].value == words[i]);
      CHECK(items[i].shows_value);
      CHECK(items[i].scope == AgreementScope::option);
    }
  }

  TEST_CASE("reports list the reported fields only") {
    CHECK(detail::options_json(Knobs{}) == R"({"size": 64, "fast": false, "cap": 1000})");
    ExecutionOptions o;
    o.transport = TransportPolicy::node_window;
    const std::string j = detail::options_json(o);
    CHECK(j.find(R"("transport": "node-window")") != std::string::npos);
    CHECK(j.find(R"("streaming": "automatic")") != std::string::npos);
    CHECK(j.find(R"("max_message_bytes": 2147483647)") != std::string::npos);
    CHECK(j.find("progress_timeout") == std::string::npos);
  }

  TEST_CASE("ExecutionOptions: every field validated, named, with its value") {
    const auto refused = [](auto set, const std::string& named) {
      ExecutionOptions o;
      set(o);
      const std::string m = message([&] { o.validate(); });
      CHECK_MESSAGE(m.find(named) != std::string::npos, m, " lacks ", named);
    };
    refused([](auto& o) { o.chunk_bytes = 0; }, "ExecutionOptions::chunk_bytes = 0");
    refused([](auto& o) { o.streaming = static_cast<Toggle>(4); },
            "ExecutionOptions::streaming = 4");
    refused([](auto& o) { o.streaming_threshold_bytes = -1; },
            "ExecutionOptions::streaming_threshold_bytes = -1");
    refused([](auto& o) { o.transport = static_cast<TransportPolicy>(9); },
            "ExecutionOptions::transport = 9");
    refused([](auto& o) { o.progress_timeout_seconds = -1; },
            "ExecutionOptions::progress_timeout_seconds = -1");
    refused([](auto& o) { o.max_message_bytes = 0; }, "ExecutionOptions::max_message_bytes = 0");
    refused([](auto& o) { o.max_message_bytes = largest_message_bytes + 1; },
            "INT_MAX = 2147483647: ExecutionOptions::max_message_bytes = 2147483648");
    CHECK_NOTHROW(ExecutionOptions{}.validate());
  }

  TEST_CASE("ExecutionOptions: each variable reaches its member") {
    const ScopedEnv c("REDIST_CHUNK_BYTES", "4096");
    const ScopedEnv s("REDIST_STREAMING", "0");
    const ScopedEnv w("REDIST_SHARED_WINDOW", "0");
    const ScopedEnv t("REDIST_TRANSPORT", "node-window");
    const ScopedEnv g("REDIST_GPU_AWARE_MPI", "1");
    const ScopedEnv p("REDIST_PROGRESS_TIMEOUT", "0.25");
    const ScopedEnv m("REDIST_MAX_MESSAGE_BYTES", "100");
    const ExecutionOptions o = ExecutionOptions{}.with_environment();
    CHECK(o.chunk_bytes == 4096);
    CHECK(o.streaming == Toggle::off);
    CHECK_FALSE(o.shared_window);
    CHECK(o.transport == TransportPolicy::node_window);
    CHECK(o.gpu_aware_mpi);
    CHECK(o.progress_timeout_seconds == 0.25);
    CHECK(o.max_message_bytes == 100);
  }

  TEST_CASE("ExecutionOptions: REDIST_RING_SLOTS takes what the field takes, a count") {
    const auto slots = [](const char* v) {
      const ScopedEnv r("REDIST_RING_SLOTS", v);
      ExecutionOptions in;
      in.ring_slots = 7;
      return in.with_environment().ring_slots;
    };
    CHECK(slots("-1") == -1);  // automatic, as in code
    CHECK(slots("0") == 0);
    CHECK(slots("16") == 16);
    CHECK(message([&] { (void)slots("-2"); }) ==
          "redist: must be a count (decimal digits): REDIST_RING_SLOTS = -2");
    CHECK(message([&] { (void)slots("four"); }) ==
          "redist: must be a count (decimal digits): REDIST_RING_SLOTS = four");
    CHECK(message([&] { (void)slots("1025"); }) ==
          "redist: count above the largest allowed, 1024: REDIST_RING_SLOTS = 1025");
  }

  TEST_CASE("PlanOptions: REDIST_MAX_BUFFER_BYTES reaches max_buffer_bytes, a bad one is named") {
    {
      const ScopedEnv b("REDIST_MAX_BUFFER_BYTES", "67108864");
      CHECK(detail::apply_environment(PlanOptions{}).max_buffer_bytes == 67108864);
      const ScopedEnv t("REDIST_BATCH_BYTES", "4096");
      CHECK(detail::apply_environment(PlanOptions{}).batch_bytes == 4096);
    }
    {
      // 0 turns the batch target off, from the variable as in code; a buffer cap of 0
      // means nothing and stays refused, with the variable named.
      const ScopedEnv t("REDIST_BATCH_BYTES", "0");
      CHECK(detail::apply_environment(PlanOptions{}).batch_bytes == 0);
      const ScopedEnv b("REDIST_MAX_BUFFER_BYTES", "0");
      CHECK(message([] { (void)detail::apply_environment(PlanOptions{}); }) ==
            "redist: must be a positive byte count: REDIST_MAX_BUFFER_BYTES = 0");
    }
    {
      // -1 is automatic, from the variable as in code; below it nothing is a byte count.
      PlanOptions set;
      set.batch_bytes = 4096;
      const ScopedEnv t("REDIST_BATCH_BYTES", "-1");
      CHECK(detail::apply_environment(set).batch_bytes == PlanOptions::automatic);
      const ScopedEnv u("REDIST_BATCH_BYTES", "-2");
      CHECK(message([] { (void)detail::apply_environment(PlanOptions{}); }) ==
            "redist: must be a byte count (decimal digits): REDIST_BATCH_BYTES = -2");
    }
    // automatic resolves by memory; a value set stays.
    CHECK(resolve_batch_bytes(PlanOptions::automatic, true) == PlanOptions::host_batch_bytes);
    CHECK(resolve_batch_bytes(PlanOptions::automatic, false) == 0);
    CHECK(resolve_batch_bytes(4096, false) == 4096);
    CHECK(resolve_batch_bytes(0, true) == 0);
    // ... and by whether a message may lie whole in a buffer: not where rings carry all.
    CHECK(resolve_batch_bytes(PlanOptions::automatic, true, false) == 0);
    CHECK(resolve_batch_bytes(4096, true, false) == 4096);
    {
      const ExecutionOptions rings;  // the defaults: node window, 4 slots a ring
      CHECK_FALSE(whole_messages_buffered(rings, 1));
      CHECK(whole_messages_buffered(rings, 2));  // between nodes, point to point
      ExecutionOptions forced = rings;
      forced.transport = TransportPolicy::point_to_point;
      CHECK(whole_messages_buffered(forced, 1));
      forced = rings;
      forced.shared_window = false;
      CHECK(whole_messages_buffered(forced, 1));
      forced = rings;
      forced.ring_slots = 0;  // a batch's messages lie whole in the window
      CHECK(whole_messages_buffered(forced, 1));
      forced = rings;
      forced.transport = TransportPolicy::cross_memory;  // read in place, or rings
      CHECK_FALSE(whole_messages_buffered(forced, 1));
    }
    PlanOptions below;
    below.batch_bytes = -2;
    CHECK(message([&] { detail::validate_options(below); }) ==
          "redist: batch_bytes must be >= 0, or PlanOptions::automatic (-1): "
          "PlanOptions::batch_bytes = -2");
    const ScopedEnv bad("REDIST_MAX_BUFFER_BYTES", "64M");
    const std::string what = message([] { (void)detail::apply_environment(PlanOptions{}); });
    CHECK(what.find("REDIST_MAX_BUFFER_BYTES") != std::string::npos);
    CHECK(what.find("64M") != std::string::npos);
  }

  TEST_CASE("PlanOptions: batch validated through its table, by make_reference_plan") {
    PlanOptions o;
    o.batch = -2;
    CHECK(message([&] { detail::validate_options(o); }) ==
          "redist: batch must be >= 0 (0 = automatic): PlanOptions::batch = -2");
    const Layout l{Tiling{UniformAxis<>(6, 2), UniformAxis<>(6, 2)}, BlockCyclic(1, 1)};
    CHECK(message([&] {
            (void)make_reference_plan(l, l, Region::whole({6, 6}), 0, 1, o);
          }).find("PlanOptions::batch = -2") != std::string::npos);
  }

  TEST_CASE("agreement scopes: storage items are the ones rebind() may change") {
    // The kinds: the storage items, the layout ones, then the PlanOptions fields.
    const auto& kinds = detail::redistribution_item_kinds;
    REQUIRE(kinds.size() == detail::input_item_kinds.size() + detail::option_count<PlanOptions>);
    CHECK(kinds[5].scope == AgreementScope::storage);
    CHECK(kinds[6].scope == AgreementScope::storage);
    CHECK(kinds.back().name == "PlanOptions::batch_bytes");
    CHECK(kinds.back().scope == AgreementScope::option);

    // Items of the same move with other storage differ exactly in the storage items; with
    // another tiling or other options, in no storage item.
    const Layout a{Tiling{UniformAxis<>(8, 2), UniformAxis<>(8, 2)}, BlockCyclic(1, 1)};
    const Layout b{Tiling{UniformAxis<>(8, 3), UniformAxis<>(8, 2)}, BlockCyclic(1, 1)};
    const Region r = Region::whole({8, 8});
    const TiledMatrix<double, decltype(a), PackedTiles<>> packed(a, {}, 0);
    const TiledMatrix<double, decltype(a), ScalapackColumnMajor<>> scalapack(a, {}, 0);
    const TiledMatrix<double, decltype(b), PackedTiles<>> other_tiling(b, {}, 0);
    PlanOptions batched;
    batched.batch = 2;
    const auto base = detail::redistribution_items(packed, packed, r, {});
    const auto scopes_differing = [&](const std::vector<AgreementItem>& items) {
      REQUIRE(items.size() == base.size());
      std::vector<AgreementScope> out;
      for (std::size_t i = 0; i < items.size(); ++i) {
        CHECK(items[i].name == base[i].name);
        CHECK(items[i].scope == base[i].scope);
        if (items[i].value != base[i].value) out.push_back(items[i].scope);
      }
      return out;
    };
    using S = AgreementScope;
    CHECK(scopes_differing(detail::redistribution_items(scalapack, packed, r, {})) ==
          std::vector{S::storage});
    CHECK(scopes_differing(detail::redistribution_items(other_tiling, packed, r, {})) ==
          std::vector{S::layout});
    CHECK(scopes_differing(detail::redistribution_items(packed, packed, r, batched)) ==
          std::vector{S::option});
  }

  TEST_CASE("docs/quickstart.md's option tables match the field tables") {
    // A field added to a table without its docs row (or the reverse) fails here.
    check_doc_table<PlanOptions>("PlanOptions", true);
    check_doc_table<ExecutionOptions>("ExecutionOptions", true);
  }

  TEST_CASE("docs/cost-model.md lists every ExecutionOptions variable with its member") {
    std::ifstream in(std::string(REDIST_SOURCE_DIR) + "/docs/cost-model.md");
    REQUIRE(in);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    detail::for_each_field<ExecutionOptions>([&](const auto& f) {
      if (f.env == nullptr) return;
      const std::string row =
          "\n| " + f.kind.doc_env(f.env) + " | `" + std::string(f.member_name()) + "` |";
      CHECK_MESSAGE(text.find(row) != std::string::npos, "docs/cost-model.md lacks ", row);
    });
  }
}
