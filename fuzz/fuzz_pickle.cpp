// libFuzzer target: raw bytes -> the pickle reader (src/nas/pickle_machine.cpp). Every input must
// give a tree or an error Status with a message: no crash, hang, leak or sanitizer report.
// Each input is loaded twice, under the default limits and under tiny ones (so the limit
// checks run too), and a loaded tree is used the way the NATS reader uses it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "rooflens/nas/pickle.h"

namespace {

using rooflens::pickle::Kind;
using rooflens::pickle::Value;

void use(const Value& root) {
  ROOFLENS_FUZZ_CHECK(root.kind != Kind::kGlobal && root.kind != Kind::kDtype, "a bare global/dtype was returned");
  std::string r = rooflens::pickle::repr(root);
  ROOFLENS_FUZZ_CHECK(!r.empty(), "empty repr");
  std::string key;
  (void)rooflens::pickle::canonical_key(root, &key);
  (void)root.get("meta_archs");
  for (const auto& [k, v] : root.entries) {
    ROOFLENS_FUZZ_CHECK(root.get(*k) != nullptr, "a dict's own key is not found");
    (void)rooflens::pickle::repr(*v, 2);
    (void)v->as_double();
  }
  for (const auto& item : root.items) (void)rooflens::pickle::repr(*item, 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.pickle";
  auto v = rooflens::pickle::load(bytes, source);
  if (v) {
    use(**v);
  } else {
    ROOFLENS_FUZZ_CHECK(!v.status().message().empty(), "error Status without a message");
  }

  rooflens::pickle::Limits tiny;
  tiny.max_memo = 16;
  tiny.max_stack = 32;
  tiny.max_marks = 4;
  tiny.max_depth = 4;
  tiny.max_container = 16;
  auto t = rooflens::pickle::load(bytes, source, tiny);
  if (t) use(**t);
  return 0;
}
