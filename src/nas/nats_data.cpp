// NATS-Bench SSS files (nats_data.h): bzip2 through Bz2Source (byte_source.h), then the pickle
// reader, then a typed walk of the documented layout.
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/byte_source.h"

#include <bzlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

namespace rooflens::nas {
namespace {

Expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::invalid(fmt::format("{}: cannot open file", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::invalid(fmt::format("{}: read error", path));
  return bytes;
}

}  // namespace

Expected<std::string> bz2_decompress(std::string_view compressed, const std::string& source, size_t max_bytes) {
  // The one decode loop is Bz2Source's (byte_source.h); this gathers its output.
  MemorySource in(compressed);
  Bz2Source bz(in, source);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    auto got = bz.read(buf, sizeof(buf));
    if (!got) return got.status();
    if (*got == 0) return out;
    if (out.size() + *got > max_bytes)
      return Status::invalid(fmt::format("{}: bzip2: expands beyond {} bytes (compressed byte {})", source, max_bytes,
                                         bz.compressed_consumed()));
    out.append(buf, *got);
  }
}

Expected<std::string> bz2_compress(std::string_view bytes) {
  // libbz2's bound: 1% + 600 bytes over the input.
  unsigned cap = static_cast<unsigned>(bytes.size() + bytes.size() / 100 + 601);
  if (bytes.size() > (size_t{1} << 30)) return Status::invalid("bzip2: input too large to compress in one buffer");
  std::string out(cap, '\0');
  int rc = BZ2_bzBuffToBuffCompress(out.data(), &cap, const_cast<char*>(bytes.data()),
                                    static_cast<unsigned>(bytes.size()), 9, 0, 0);
  if (rc != BZ_OK) return Status::internal(fmt::format("bzip2: compression failed ({})", rc));
  out.resize(cap);
  return out;
}

Expected<pickle::ValuePtr> load_pickle_bz2(const std::string& path) {
  auto compressed = read_file(path);
  if (!compressed) return compressed.status();
  return load_pickle_bz2_bytes(*compressed, path);
}

Expected<pickle::ValuePtr> load_pickle_bz2_bytes(std::string_view compressed, const std::string& source) {
  auto raw = bz2_decompress(compressed, source);
  if (!raw) return raw.status();
  return pickle::load(*raw, source);
}

namespace {

using pickle::Kind;
using pickle::Value;

// A typed view of one dict, with messages that say where in the file a problem is.
class Fields {
 public:
  Fields(const Value& v, std::string where) : v_(v), where_(std::move(where)) {}

  Status is_dict() const {
    if (v_.kind != Kind::kDict) return bad(v_, fmt::format("is a {}, not a dict", pickle::kind_name(v_.kind)));
    return Status::ok();
  }
  Expected<const Value*> get(std::string_view key, Kind kind) const {
    const Value* f = v_.get(key);
    if (!f) return bad(v_, fmt::format("has no '{}'", key));
    if (f->kind != kind && !(kind == Kind::kFloat && f->is_number()))
      return bad(*f, fmt::format("'{}' is a {}, not a {}", key, pickle::kind_name(f->kind), pickle::kind_name(kind)));
    return f;
  }
  Expected<double> number(std::string_view key) const {
    auto f = get(key, Kind::kFloat);
    if (!f) return f.status();
    return (*f)->as_double();
  }
  Expected<int> integer(std::string_view key) const {
    auto f = get(key, Kind::kInt);
    if (!f) return f.status();
    if ((*f)->integer < INT32_MIN || (*f)->integer > INT32_MAX) return bad(**f, fmt::format("'{}' out of range", key));
    return static_cast<int>((*f)->integer);
  }
  Status bad(const Value& at, const std::string& what) const {
    return Status::invalid(fmt::format("{} (pickle offset {}) {}", where_, at.offset, what));
  }
  const std::string& where() const { return where_; }

 private:
  const Value& v_;
  std::string where_;
};

// {int epoch: number} or {"split@epoch": number}
template <typename K>
Status number_map(const Fields& f, std::string_view key, std::map<K, double>* out) {
  auto m = f.get(key, Kind::kDict);
  if (!m) return m.status();
  for (const auto& [k, v] : (*m)->entries) {
    if (!v->is_number())
      return f.bad(*v, fmt::format("'{}' holds a {}, not a number", key, pickle::kind_name(v->kind)));
    if constexpr (std::is_same_v<K, int>) {
      if (k->kind != Kind::kInt || (k->integer < 0) || (k->integer > INT32_MAX))
        return f.bad(*k, fmt::format("'{}' has key {}, not an epoch", key, pickle::repr(*k)));
      (*out)[static_cast<int>(k->integer)] = v->as_double();
    } else {
      if (k->kind != Kind::kStr) return f.bad(*k, fmt::format("'{}' has key {}, not a string", key, pickle::repr(*k)));
      (*out)[k->text] = v->as_double();
    }
  }
  return Status::ok();
}

Expected<NatsResult> parse_result(const Value& v, const std::string& where, const std::string& dataset, int seed) {
  Fields f(v, where);
  ROOFLENS_RETURN_IF_ERROR(f.is_dict());
  NatsResult r;
  r.dataset = dataset;
  r.seed = seed;
  auto epochs = f.integer("epochs");
  if (!epochs) return epochs.status();
  r.epochs = *epochs;
  auto flop = f.number("flop");
  if (!flop) return flop.status();
  r.flop = *flop;
  auto params = f.number("params");
  if (!params) return params.status();
  r.params = *params;
  const Value* lat = v.get("latency");
  if (!lat) return f.bad(v, "has no 'latency'");
  if (lat->is_number()) {
    r.latency.push_back(lat->as_double());
  } else if (lat->kind == Kind::kList || lat->kind == Kind::kTuple) {
    for (const auto& x : lat->items) {
      if (!x->is_number()) return f.bad(*x, "'latency' holds a non-number");
      r.latency.push_back(x->as_double());
    }
  } else {
    return f.bad(*lat, fmt::format("'latency' is a {}", pickle::kind_name(lat->kind)));
  }
  ROOFLENS_RETURN_IF_ERROR(number_map(f, "train_acc1es", &r.train_acc1es));
  ROOFLENS_RETURN_IF_ERROR(number_map(f, "train_times", &r.train_times));
  ROOFLENS_RETURN_IF_ERROR(number_map(f, "eval_acc1es", &r.eval_acc1es));
  ROOFLENS_RETURN_IF_ERROR(number_map(f, "eval_times", &r.eval_times));
  if (const Value* names = v.get("eval_names"); names && names->kind == Kind::kList) {
    for (const auto& n : names->items)
      if (n->kind == Kind::kStr) r.eval_names.push_back(n->text);
  }
  return r;
}

Expected<NatsHpResults> parse_hp(const std::string& hp, const Value& v, const std::string& path) {
  Fields f(v, fmt::format("{}: hp '{}'", path, hp));
  ROOFLENS_RETURN_IF_ERROR(f.is_dict());
  NatsHpResults out;
  out.hp = hp;
  auto index = f.integer("arch_index");
  if (!index) return index.status();
  out.arch_index = *index;
  auto arch = f.get("arch_str", Kind::kStr);
  if (!arch) return arch.status();
  out.arch_str = (*arch)->text;

  auto seeds = f.get("dataset_seed", Kind::kDict);
  if (!seeds) return seeds.status();
  for (const auto& [k, list] : (*seeds)->entries) {
    if (k->kind != Kind::kStr || list->kind != Kind::kList)
      return f.bad(*k, fmt::format("'dataset_seed' entry {} is not dataset -> [seeds]", pickle::repr(*k)));
    std::vector<int>& dst = out.dataset_seeds[k->text];
    for (const auto& s : list->items) {
      if (s->kind != Kind::kInt || s->integer < INT32_MIN || s->integer > INT32_MAX)
        return f.bad(*s, fmt::format("'dataset_seed' of {} holds {}, not a seed", k->text, pickle::repr(*s)));
      dst.push_back(static_cast<int>(s->integer));
    }
  }

  auto all = f.get("all_results", Kind::kDict);
  if (!all) return all.status();
  for (const auto& [k, res] : (*all)->entries) {
    if (k->kind != Kind::kTuple || k->items.size() != 2 || k->items[0]->kind != Kind::kStr ||
        k->items[1]->kind != Kind::kInt || k->items[1]->integer < INT32_MIN || k->items[1]->integer > INT32_MAX)
      return f.bad(*k, fmt::format("'all_results' key {} is not (dataset, seed)", pickle::repr(*k)));
    const std::string& dataset = k->items[0]->text;
    int seed = static_cast<int>(k->items[1]->integer);
    auto r = parse_result(*res, fmt::format("{} all_results[('{}', {})]", f.where(), dataset, seed), dataset, seed);
    if (!r) return r.status();
    out.results.push_back(std::move(*r));
  }
  // Every listed seed has its result.
  for (const auto& [dataset, list] : out.dataset_seeds)
    for (int seed : list)
      if (!out.find(dataset, seed))
        return f.bad(**all, fmt::format("'all_results' lacks ('{}', {}) listed in 'dataset_seed'", dataset, seed));
  return out;
}

}  // namespace

double NatsResult::eval_acc1(std::string_view split, int epoch) const {
  auto it = eval_acc1es.find(fmt::format("{}@{}", split, epoch));
  return it == eval_acc1es.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

double NatsResult::eval_time(std::string_view split, int epoch) const {
  auto it = eval_times.find(fmt::format("{}@{}", split, epoch));
  return it == eval_times.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

const NatsResult* NatsHpResults::find(std::string_view dataset, int seed) const {
  for (const NatsResult& r : results)
    if (r.dataset == dataset && r.seed == seed) return &r;
  return nullptr;
}

const NatsHpResults* NatsNetwork::find(std::string_view hp) const {
  for (const NatsHpResults& h : hps)
    if (h.hp == hp) return &h;
  return nullptr;
}

Expected<std::vector<std::string>> read_nats_meta(const std::string& path) {
  auto root = load_pickle_bz2(path);
  if (!root) return root.status();
  return nats_meta_from_pickle(**root, path);
}

Expected<std::vector<std::string>> read_nats_meta_bytes(std::string_view compressed, const std::string& source) {
  auto root = load_pickle_bz2_bytes(compressed, source);
  if (!root) return root.status();
  return nats_meta_from_pickle(**root, source);
}

Expected<std::vector<std::string>> nats_meta_from_pickle(const pickle::Value& root, const std::string& source) {
  Fields f(root, source);
  ROOFLENS_RETURN_IF_ERROR(f.is_dict());
  auto archs = f.get("meta_archs", Kind::kList);
  if (!archs) return archs.status();
  std::vector<std::string> out;
  out.reserve((*archs)->items.size());
  for (const auto& a : (*archs)->items) {
    if (a->kind != Kind::kStr) return f.bad(*a, fmt::format("'meta_archs' holds a {}", pickle::kind_name(a->kind)));
    out.push_back(a->text);
  }
  if (const Value* total = root.get("total_archs");
      total && total->kind == Kind::kInt && total->integer != static_cast<int64_t>(out.size()))
    return f.bad(*total, fmt::format("'total_archs' is {} but 'meta_archs' lists {}", total->integer, out.size()));
  return out;
}

Expected<NatsNetwork> read_nats_network(const std::string& path) {
  auto root = load_pickle_bz2(path);
  if (!root) return root.status();
  return nats_network_from_pickle(**root, path);
}

Expected<NatsNetwork> read_nats_network_bytes(std::string_view compressed, const std::string& source) {
  auto root = load_pickle_bz2_bytes(compressed, source);
  if (!root) return root.status();
  return nats_network_from_pickle(**root, source);
}

Expected<NatsNetwork> nats_network_from_pickle(const pickle::Value& root, const std::string& source) {
  Fields f(root, source);
  ROOFLENS_RETURN_IF_ERROR(f.is_dict());
  NatsNetwork net;
  for (const auto& [k, v] : root.entries) {
    if (k->kind != Kind::kStr) return f.bad(*k, fmt::format("has key {}, not an hp string", pickle::repr(*k)));
    auto hp = parse_hp(k->text, *v, source);
    if (!hp) return hp.status();
    net.hps.push_back(std::move(*hp));
  }
  if (net.hps.empty()) return f.bad(root, "holds no hp results");
  return net;
}

std::string nats_network_path(const std::string& dir, int index) {
  return fmt::format("{}/{:06d}.pickle.pbz2", dir, index);
}

}  // namespace rooflens::nas
