// A node's attributes: values by name, kept as one small vector sorted by name.
// Nodes have a handful of attributes, so one allocation per node and a binary search beat
// a tree node per attribute. The interface is the subset of std::map the code uses:
// find/end (iterators to std::pair<name, value>), operator[], insert_or_assign, iteration
// in name order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rooflens/ir/dtype.h"

namespace rooflens {

using Shape = std::vector<int64_t>;  // a tensor's dims (the IR's shape type, see graph.h)

// A constant tensor held in an attribute (ONNX Constant's `value`, ConstantOfShape's `value`).
struct TensorConst {
  DType dtype = DType::kUnknown;
  Shape shape;
  std::vector<int64_t> ints;  // set for integer dtypes when data is present
  std::vector<double> reals;  // set for float dtypes when data is present
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>, TensorConst>;

class AttrMap {
 public:
  using value_type = std::pair<std::string, AttrValue>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  AttrMap() = default;
  // A key given twice keeps its first value, as std::map's constructors do.
  AttrMap(std::initializer_list<value_type> items) {
    items_.reserve(items.size());
    for (const auto& [k, v] : items)
      if (auto it = lower(k); it == items_.end() || it->first != k) items_.emplace(it, k, v);
  }
  // Already sorted and unique: copied as is (GraphBuilder's callers pass std::map).
  AttrMap(const std::map<std::string, AttrValue>& m) : items_(m.begin(), m.end()) {}  // NOLINT: implicit on purpose

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void reserve(size_t n) { items_.reserve(n); }

  iterator find(std::string_view k) {
    auto it = lower(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  const_iterator find(std::string_view k) const {
    auto it = lower(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  size_t count(std::string_view k) const { return find(k) != end() ? 1 : 0; }

  // Inserts a default value (int 0, as std::map's variant would) when `k` is absent.
  AttrValue& operator[](std::string_view k) {
    auto it = lower(k);
    if (it == items_.end() || it->first != k) it = items_.emplace(it, std::string(k), AttrValue{});
    return it->second;
  }

  std::pair<iterator, bool> insert_or_assign(std::string k, AttrValue v) {
    auto it = lower(k);
    if (it != items_.end() && it->first == k) {
      it->second = std::move(v);
      return {it, false};
    }
    return {items_.emplace(it, std::move(k), std::move(v)), true};
  }

 private:
  iterator lower(std::string_view k) {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const value_type& e, std::string_view key) { return e.first < key; });
  }
  const_iterator lower(std::string_view k) const {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const value_type& e, std::string_view key) { return e.first < key; });
  }

  std::vector<value_type> items_;
};

}  // namespace rooflens
