#include "options.hpp"

#include <type_traits>

#include <redist/error.hpp>
#include <redist/option_fields.hpp>

namespace py = pybind11;

namespace redist_python {
namespace {

using redist::index_t;

[[noreturn]] void refuse(py::handle v, const std::string& name, const std::string& want) {
  throw redist::invalid_argument("redist: option " + name + ": expected " + want + ", got " +
                                 std::string(py::repr(v)));
}

// One keyword's value as the member's type. @throws invalid_argument naming the keyword.
template <class V>
V value_of(py::handle v, const std::string& name) {
  const auto wrong = [&](const std::string& want) { refuse(v, name, want); };
  if constexpr (std::is_same_v<V, bool>) {
    if (!py::isinstance<py::bool_>(v)) wrong("True or False");
    return v.cast<bool>();
  } else if constexpr (std::is_same_v<V, index_t>) {
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v)) wrong("an integer");
    try {
      return v.cast<index_t>();
    } catch (const py::cast_error&) {
      refuse(v, name, "an integer that fits 64 bits");
    }
  } else if constexpr (std::is_same_v<V, double>) {
    if (!py::isinstance<py::int_>(v) && !py::isinstance<py::float_>(v)) wrong("a number");
    return v.cast<double>();
  } else if constexpr (std::is_same_v<V, redist::Toggle>) {
    if (py::isinstance<py::bool_>(v))
      return v.cast<bool>() ? redist::Toggle::on : redist::Toggle::off;
    if (!py::isinstance<py::str>(v)) wrong("'auto', 'on', 'off' or a bool");
    const std::string s = v.cast<std::string>();
    if (s == "auto") return redist::Toggle::automatic;
    if (s == "on") return redist::Toggle::on;
    if (s == "off") return redist::Toggle::off;
    refuse(v, name, "'auto', 'on', 'off' or a bool");
  } else {  // a policy, by its name
    if (!py::isinstance<py::str>(v)) wrong("one of " + redist::policy_choices<V>());
    return redist::parse_policy<V>(v.cast<std::string>(), "option " + name);
  }
}

// Sets the members of `o` that `kwargs` names; counts the keywords taken.
template <class Options>
void take(Options& o, const py::kwargs& kwargs, std::size_t& taken) {
  redist::detail::for_each_field<Options>([&](const auto& field) {
    const std::string name(field.member_name());
    if (!kwargs.contains(name)) return;
    using V = std::remove_cvref_t<decltype(o.*field.member)>;
    o.*field.member = value_of<V>(kwargs[py::str(name)], name);
    ++taken;
  });
  redist::detail::validate_options(o);
}

}  // namespace

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  const auto add = [&](const auto& field) { names.emplace_back(field.member_name()); };
  redist::detail::for_each_field<redist::PlanOptions>(add);
  redist::detail::for_each_field<redist::ExecutionOptions>(add);
  return names;
}

MoveOptions move_options(const py::kwargs& kwargs) {
  MoveOptions o;
  std::size_t taken = 0;
  take(o.plan, kwargs, taken);
  take(o.execution, kwargs, taken);
  if (taken == kwargs.size()) return o;
  std::string known;
  for (const std::string& n : option_names()) known += (known.empty() ? "" : ", ") + n;
  for (const auto& item : kwargs) {
    const std::string key = py::str(item.first);
    bool found = false;
    for (const std::string& n : option_names()) found = found || n == key;
    if (!found)
      throw redist::invalid_argument("redist: unknown option '" + key + "' (options: " + known +
                                     ")");
  }
  return o;
}

}  // namespace redist_python
