#pragma once
/// @file option_fields.hpp
/// One declaration per option. An options struct (ExecutionOptions, PlanOptions) names
/// each member once more, in its field table (`detail::OptionFields<Options>::fields`, next
/// to the struct): its qualified name, the member, its REDIST_* variable, its kind (how
/// the value is parsed, checked, agreed and shown) and whether reports list it. Everything
/// else iterates the table:
///
/// | operation                    | what each field contributes                          |
/// |------------------------------|------------------------------------------------------|
/// | `apply_environment(o)`       | its variable, if set: parsed, replaces (or caps) it  |
/// | `validate_options(o)`        | its kind's check; invalid_argument naming it, value  |
/// | `option_items(o)`            | one AgreementItem (scope option), its value shown    |
/// | `option_words(o)`            | the same values as a constexpr-sized array           |
/// | `options_json(o)`            | `"member": value` if reported                        |
/// | docs (tests/unit/test_option_fields.cpp) | a row of docs/quickstart.md's table      |
///
/// Adding an option: declare the member (with its default) and add one table entry.

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/detail/environment.hpp>
#include <redist/error.hpp>
#include <redist/fingerprint.hpp>
#include <redist/index.hpp>

namespace redist::detail {

/// The field table of an options struct; specialised next to each struct.
template <class Options>
struct OptionFields;

/// How a set variable combines with the value set in code.
enum class EnvRule : std::uint8_t {
  replace,  ///< the variable wins
  cap       ///< the smaller wins: a lower limit set in code is kept
};

/// One option: `name` qualified ("ExecutionOptions::chunk_bytes"), `env` null if none.
template <class Owner, class T, class Kind>
struct OptionField {
  std::string_view name;
  T Owner::*member;
  const char* env;
  Kind kind;
  bool reported;
  EnvRule rule;

  /// "chunk_bytes": the member as written in code.
  constexpr std::string_view member_name() const { return name.substr(name.rfind(':') + 1); }
};

template <class Owner, class T, class Kind>
constexpr OptionField<Owner, T, Kind> option_field(std::string_view name, T Owner::*member,
                                                   const char* env, Kind kind, bool reported = true,
                                                   EnvRule rule = EnvRule::replace) {
  return {name, member, env, kind, reported, rule};
}

/// An integer in [low, high]. Its variable is a decimal count in [env_low, high]
/// (env_bytes; env_low 0 or 1), or -1 where low is -1 (automatic, as in code). `below` /
/// `above`: why a value out of range is refused;
/// `above` names the bound, which the message follows with " = high".
struct Integer {
  index_t low;
  index_t high;
  std::string_view below;
  std::string_view above = {};
  bool bytes = true;    ///< docs show 2^k KiB, MiB, GiB as such
  index_t env_low = 1;  ///< the smallest value the variable takes: 0 where 0 means off

  index_t parse(const char* var, std::string_view text) const {
    if (low == -1 && text == "-1") return -1;
    return env_bytes(var, text, high, env_low, bytes ? "byte count" : "count");
  }
  std::string check(index_t v) const {
    if (v < low) return std::string(below);
    if (v > high) return std::string(above) + " = " + std::to_string(high);
    return {};
  }
  static index_t shown(index_t v) { return v; }
  static std::uint64_t word(index_t v) { return static_cast<std::uint64_t>(v); }
  static std::string json(index_t v) { return std::to_string(v); }
  std::string doc_default(index_t v) const {
    if (v == INT_MAX) return "`INT_MAX`";
    constexpr std::pair<const char*, int> units[] = {{"GiB", 30}, {"MiB", 20}, {"KiB", 10}};
    for (const auto& [unit, shift] : units)
      if (bytes && v > 0 && v % (index_t{1} << shift) == 0)
        return std::to_string(v >> shift) + " " + unit;
    return std::to_string(v);
  }
  static std::string doc_env(std::string_view var) { return "`" + std::string(var) + "=N`"; }
  static constexpr std::string_view word_unit = "";
};

/// A switch; its variable is 0 or 1. `macro`: the configuration macro that sets the
/// default, if any (docs then name the macro, whatever this build defined).
struct Flag {
  std::string_view macro = {};

  static bool parse(const char* var, std::string_view text) { return env_flag(var, text); }
  static std::string check(bool) { return {}; }
  static index_t shown(bool v) { return v; }
  static std::uint64_t word(bool v) { return v; }
  static std::string json(bool v) { return v ? "true" : "false"; }
  std::string doc_default(bool v) const {
    if (!macro.empty()) return "the macro `" + std::string(macro) + "`";
    return v ? "`true`" : "`false`";
  }
  static std::string doc_env(std::string_view var) { return "`" + std::string(var) + "=0` or `1`"; }
  static constexpr std::string_view word_unit = "";
};

/// Seconds, finite and >= 0; agreed in whole microseconds, so that the value shown when
/// ranks differ stays an integer.
struct Seconds {
  std::string_view invalid;

  static double parse(const char* var, std::string_view text) { return env_seconds(var, text); }
  std::string check(double v) const {
    return std::isfinite(v) && v >= 0 ? std::string() : std::string(invalid);
  }
  static double shown(double v) { return v; }
  static std::uint64_t word(double v) {
    return static_cast<std::uint64_t>(static_cast<index_t>(v * 1e6));
  }
  static std::string json(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }
  static std::string doc_default(double v) { return json(v); }
  static std::string doc_env(std::string_view var) { return "`" + std::string(var) + "=S`"; }
  static constexpr std::string_view word_unit = " (us)";
};

/// f(field) for every field of Options' table, in order.
template <class Options, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, OptionFields<Options>::fields);
}

template <class Options>
inline constexpr std::size_t option_count =
    std::tuple_size_v<std::remove_const_t<decltype(OptionFields<Options>::fields)>>;

/// `o` with every set variable of its table applied (not validated).
/// @throws invalid_argument naming the variable and its value if one is malformed.
template <class Options>
Options apply_environment(Options o) {
  for_each_field<Options>([&](const auto& f) {
    if (f.env == nullptr) return;
    if (const char* text = std::getenv(f.env)) {
      const auto v = f.kind.parse(f.env, text);
      auto& member = o.*f.member;
      member = f.rule == EnvRule::cap && member < v ? member : v;
    }
  });
  return o;
}

/// @throws invalid_argument naming the first invalid field and its value.
template <class Options>
void validate_options(const Options& o) {
  for_each_field<Options>([&](const auto& f) {
    const std::string why = f.kind.check(o.*f.member);
    if (!why.empty()) throw invalid_argument(describe(why, f.name, f.kind.shown(o.*f.member)));
  });
}

/// Every field's agreement word, in table order.
template <class Options>
constexpr std::array<std::uint64_t, option_count<Options>> option_words(const Options& o) {
  std::array<std::uint64_t, option_count<Options>> out{};
  std::size_t k = 0;
  for_each_field<Options>([&](const auto& f) { out[k++] = f.kind.word(o.*f.member); });
  return out;
}

/// What every rank must agree on about `o`: one item per field, its value shown.
template <class Options>
std::vector<AgreementItem> option_items(const Options& o) {
  std::vector<AgreementItem> items;
  for_each_field<Options>([&](const auto& f) {
    items.push_back({std::string(f.name) + std::string(f.kind.word_unit), f.kind.word(o.*f.member),
                     true, AgreementScope::option});
  });
  return items;
}

/// The reported fields as a JSON object: {"chunk_bytes": 2097152, "streaming": "auto"}.
template <class Options>
std::string options_json(const Options& o) {
  std::string s = "{";
  for_each_field<Options>([&](const auto& f) {
    if (!f.reported) return;
    if (s.size() > 1) s += ", ";
    s += "\"" + std::string(f.member_name()) + "\": " + f.kind.json(o.*f.member);
  });
  return s + "}";
}

}  // namespace redist::detail
