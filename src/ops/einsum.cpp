// Einsum: one or two operands, explicit output ("bghid,bghjd->bghij"), no ellipsis and no
// repeated letter within a term. Costed directly: a two-operand einsum is a batched product
// (MaxViT's attention), MACs = the product of every distinct letter's extent; one operand is
// a transpose or a reduction (no MACs).
#include "op_util.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace rooflens {
namespace {

Expected<std::vector<std::string>> split_terms(const InferContext& ctx, std::string eq) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const auto arrow = eq.find("->");
  if (arrow == std::string::npos) return ctx.unsupported("equation", "'" + eq + "' has no explicit output ('->')");
  if (eq.find("...") != std::string::npos)
    return ctx.unsupported("equation", "'" + eq + "' uses an ellipsis, which rooflens does not lower");
  std::vector<std::string> terms;
  std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  for (size_t comma; (comma = lhs.find(',', start)) != std::string::npos; start = comma + 1)
    terms.push_back(lhs.substr(start, comma - start));
  terms.push_back(lhs.substr(start));
  terms.push_back(eq.substr(arrow + 2));
  for (const auto& t : terms) {
    for (char c : t)
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return ctx.invalid("equation", "'" + eq + "': '" + std::string(1, c) + "' is not a subscript letter");
    std::string s = t;
    std::sort(s.begin(), s.end());
    if (std::adjacent_find(s.begin(), s.end()) != s.end())
      return ctx.unsupported("equation", "'" + eq + "': a repeated letter in '" + t + "' (a diagonal)");
  }
  return terms;
}

}  // namespace

Status infer_Einsum(InferContext& ctx) {
  ROOFLENS_RETURN_IF_ERROR(ctx.require_io(1, 2));
  auto eq = ctx.attr_string("equation");
  if (!eq) return eq.status();
  auto terms = split_terms(ctx, *eq);
  if (!terms) return terms.status();
  if (terms->size() != ctx.num_inputs() + 1)
    return ctx.invalid("equation", "'" + *eq + "' has " + std::to_string(terms->size() - 1) + " operand(s), the node " +
                                       std::to_string(ctx.num_inputs()));
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const std::string& t = (*terms)[i];
    if (static_cast<int64_t>(t.size()) != ctx.in_rank(i))
      return ctx.invalid("equation", "term '" + t + "' has " + std::to_string(t.size()) + " letters for input " +
                                         std::to_string(i) + " of shape " + shape_str(ctx.in_shape(i)));
    for (size_t d = 0; d < t.size(); ++d) {
      auto [it, fresh] = extent.emplace(t[d], ctx.in_shape(i)[d]);
      if (!fresh && it->second != ctx.in_shape(i)[d])
        return ctx.invalid("equation", std::string("letter '") + t[d] + "' has extents " + std::to_string(it->second) +
                                           " and " + std::to_string(ctx.in_shape(i)[d]));
    }
  }
  EinsumDesc d;
  d.inputs.assign(terms->begin(), terms->end() - 1);
  d.output = terms->back();
  Shape y;
  for (char c : d.output) {
    auto it = extent.find(c);
    if (it == extent.end())
      return ctx.invalid("equation", std::string("output letter '") + c + "' appears in no input");
    y.push_back(it->second);
  }
  for (const auto& [c, n] : extent) {
    d.letters.push_back(c);
    d.extents.push_back(n);
  }
  int64_t all = 1;
  for (int64_t n : d.extents)
    if (__builtin_mul_overflow(all, n, &all) || all > kMaxNodeMacs)
      return ctx.invalid("equation", "the MAC count exceeds 2^52");
  d.macs = ctx.num_inputs() == 2 ? all : 0;
  ctx.set_desc(std::move(d));
  return ctx.set_output(0, ctx.in_dtype(0), y);
}

// Two operands: MACs = product of all letter extents; one operand: a copy (transpose) or a
// reduction of one add per input element.
OpCost cost_Einsum(const CostContext& ctx) {
  OpCost c = ctx.default_traffic();
  const auto& d = std::get<EinsumDesc>(ctx.node().desc);
  c.macs = d.macs;
  c.flops = 2 * d.macs;
  if (d.inputs.size() == 1 && ctx.in_numel(0) != ctx.out_numel(0)) c.flops = ctx.in_numel(0);
  return c;
}

}  // namespace rooflens
