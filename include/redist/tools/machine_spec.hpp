#pragma once
/// @file tools/machine_spec.hpp
/// A Machine (cost_model.hpp) for command-line tools: read from redist-calibrate's JSON
/// file, or given inline as `key=value` pairs, and written back as JSON.
///
///   --machine machine.json
///   --machine memcpy_bytes_per_s=5e9,link_bytes_per_s=1.25e9,link_latency_s=2e-5
///
/// The keys are Machine's members. A file is one JSON object; the numbers of those keys
/// are taken and every other key (redist-calibrate's "ranks", "nodes", ...) is left alone.
/// Inline, every key must be one of them. A key missing from either form keeps 0 (which
/// predict refuses for the memcpy bandwidth, and for the link's when bytes cross nodes).
/// Files written before copy_run_s, cores_per_node and ring_bytes_per_s existed load with
/// them 0: no cost per run, ranks not sharing cores, pack and unpack within a node at the
/// memcpy rate (the model they were calibrated for).

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <redist/cost_model.hpp>
#include <redist/error.hpp>

namespace redist::tools {

/// Machine's members by their names, in the order JSON lists them.
inline std::vector<std::pair<std::string_view, double Machine::*>> machine_fields() {
  return {{"memcpy_bytes_per_s", &Machine::memcpy_bytes_per_s},
          {"link_bytes_per_s", &Machine::link_bytes_per_s},
          {"link_latency_s", &Machine::link_latency_s},
          {"shm_bytes_per_s", &Machine::shm_bytes_per_s},
          {"shm_latency_s", &Machine::shm_latency_s},
          {"copy_run_s", &Machine::copy_run_s},
          {"cores_per_node", &Machine::cores_per_node},
          {"ring_bytes_per_s", &Machine::ring_bytes_per_s}};
}

namespace detail {

/// A number that is all of `text`, or parse_error naming `argument` and `what`.
inline double machine_number(std::string_view text, std::string_view argument,
                             const std::string& what) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0)
    throw parse_error("redist: " + std::string(argument) + ": " + what +
                      ": expected a finite number >= 0, got '" + s + "'");
  return v;
}

}  // namespace detail

/// The machine of a JSON object's text: the value of each of Machine's keys found in it.
/// @throws parse_error naming `argument` when a key's value is not a number >= 0.
inline Machine machine_from_json(std::string_view json, std::string_view argument = "machine") {
  Machine m;
  for (const auto& [name, field] : machine_fields()) {
    std::string key(1, '"');  // appended: GCC 12's -Wrestrict misreads "\"" + name
    key += name;
    key += '"';
    const auto at = json.find(key);
    if (at == std::string_view::npos) continue;
    auto k = json.find_first_not_of(" \t\r\n", at + key.size());
    if (k == std::string_view::npos || json[k] != ':')
      throw parse_error("redist: " + std::string(argument) + ": expected ':' after " + key);
    k = json.find_first_not_of(" \t\r\n", k + 1);
    const auto end = json.find_first_of(",} \t\r\n", k == std::string_view::npos ? json.size() : k);
    m.*field = detail::machine_number(json.substr(k, end - k), argument, std::string(name));
  }
  return m;
}

/// The machine of `text`: inline `key=value[,key=value]...` when it holds '=', else the
/// JSON file at that path.
/// @throws parse_error naming `argument` and the offending key, value or file.
inline Machine parse_machine(std::string_view text, std::string_view argument = "machine") {
  const std::string arg(argument);
  if (text.find('=') == std::string_view::npos) {
    std::ifstream f{std::string(text)};
    if (!f)
      throw parse_error("redist: " + arg + ": cannot read '" + std::string(text) +
                        "' (a JSON file of redist-calibrate, or key=value,...)");
    std::ostringstream os;
    os << f.rdbuf();
    return machine_from_json(os.str(), argument);
  }
  Machine m;
  std::string names;
  for (const auto& [name, field] : machine_fields())
    names += (names.empty() ? "" : ", ") + std::string(name);
  for (std::size_t k = 0; k <= text.size();) {
    const auto end = std::min(text.find(',', k), text.size());
    const std::string_view pair = text.substr(k, end - k);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos)
      throw parse_error("redist: " + arg + ": expected key=value, got '" + std::string(pair) + "'");
    const std::string_view key = pair.substr(0, eq);
    bool known = false;
    for (const auto& [name, field] : machine_fields())
      if (name == key) {
        m.*field = detail::machine_number(pair.substr(eq + 1), argument, std::string(name));
        known = true;
      }
    if (!known)
      throw parse_error("redist: " + arg + ": unknown key '" + std::string(key) + "' (expected " +
                        names + ")");
    k = end + 1;
  }
  return m;
}

/// Machine's members as the body of a JSON object ("key": value, ...), without braces.
inline std::string machine_json_fields(const Machine& m) {
  std::ostringstream os;
  os.precision(9);
  bool first = true;
  for (const auto& [name, field] : machine_fields()) {
    os << (first ? "" : ", ") << "\"" << name << "\": " << m.*field;
    first = false;
  }
  return os.str();
}

}  // namespace redist::tools
