// A node's attributes read with a default, for code that runs graphs already checked by
// shape inference (execution backends): a missing attribute, or one of another type, gives
// `def`. Shape inference itself uses InferContext (ops/op_hooks.h), which reports errors.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

inline const AttrValue* node_attr(const Node& n, std::string_view name) {
  auto it = n.attrs.find(name);
  return it == n.attrs.end() ? nullptr : &it->second;
}

inline std::vector<int64_t> attr_ints_or(const Node& n, std::string_view name, std::vector<int64_t> def) {
  const AttrValue* a = node_attr(n, name);
  if (const auto* v = a ? std::get_if<std::vector<int64_t>>(a) : nullptr) return *v;
  return def;
}

inline int64_t attr_int_or(const Node& n, std::string_view name, int64_t def) {
  const AttrValue* a = node_attr(n, name);
  if (const auto* v = a ? std::get_if<int64_t>(a) : nullptr) return *v;
  return def;
}

// Integers are accepted as reals (ONNX writers differ).
inline double attr_real_or(const Node& n, std::string_view name, double def) {
  const AttrValue* a = node_attr(n, name);
  if (!a) return def;
  if (const auto* d = std::get_if<double>(a)) return *d;
  if (const auto* i = std::get_if<int64_t>(a)) return static_cast<double>(*i);
  return def;
}

inline std::string attr_string_or(const Node& n, std::string_view name, std::string def) {
  const AttrValue* a = node_attr(n, name);
  if (const auto* v = a ? std::get_if<std::string>(a) : nullptr) return *v;
  return def;
}

}  // namespace rooflens
