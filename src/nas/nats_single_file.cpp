// NATS-Bench's single-file form (nats_single_file.h): file -> bzip2 chunks -> streaming
// pickle reader -> one network at a time through the directory form's typed walk.
#include "rooflens/nas/nats_single_file.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "rooflens/nas/byte_source.h"

namespace rooflens::nas {
namespace {

using pickle::Kind;
using pickle::Value;

Expected<NatsSingleFileRead> read_stream(ByteSource& file, uint64_t file_size, const std::string& source,
                                         const NatsNetworkSink& sink, const NatsSingleFileOptions& options) {
  Bz2Source bz(file, source, options.chunk_bytes);
  pickle::StreamOptions so = options.stream;
  so.record_key = kNatsRecordKey;
  so.chunk_bytes = options.chunk_bytes;
  NatsSingleFileRead out;
  int64_t max_index = -1;
  auto report = [&] {
    if (options.progress) options.progress({bz.compressed_consumed(), file_size, bz.decompressed(), out.networks});
  };
  const pickle::RecordSink per_network = [&](const Value& key, const Value& value) -> Expected<bool> {
    if (key.kind != Kind::kInt || key.integer < 0 || key.integer > std::numeric_limits<int32_t>::max())
      return Status::invalid(fmt::format("{}: pickle offset {}: '{}' has key {}, not an architecture index", source,
                                         key.offset, kNatsRecordKey, pickle::repr(key)));
    const int64_t index = key.integer;
    const std::string where = fmt::format("{} {}[{}]", source, kNatsRecordKey, index);
    auto net = nats_network_from_pickle(value, where);
    if (!net) return net.status();
    for (const NatsHpResults& hp : net->hps)
      if (hp.arch_index != index)
        return Status::invalid(fmt::format("{}: hp '{}' (pickle offset {}) describes network {}", where, hp.hp,
                                           value.offset, hp.arch_index));
    max_index = std::max(max_index, index);
    ++out.networks;
    if (options.progress_every > 0 && out.networks % options.progress_every == 0) report();
    return sink(index, std::move(*net));
  };
  auto root = pickle::load_streaming(bz, source, so, per_network, &out.stats);
  out.bz2_buffered_bytes = bz.buffered_bytes();
  if (!root) {
    // A bzip2 error says where in the compressed file; say how far the pickle got too.
    if (!bz.error().is_ok() && root.status().message() == bz.error().message() && bz.decompressed() > 0)
      return Status(root.status().code(),
                    fmt::format("{} after {} bytes of pickle", root.status().message(), bz.decompressed()));
    return root.status();
  }
  report();
  if (*root == nullptr) {
    out.stopped = true;
    return out;
  }
  const Value& r = **root;
  if (r.kind != Kind::kDict)
    return Status::invalid(fmt::format("{}: pickle offset {}: the pickle is a {}, not NATS-Bench's dict", source,
                                       r.offset, pickle::kind_name(r.kind)));
  const Value* infos = r.get(kNatsRecordKey);
  if (infos == nullptr)
    return Status::invalid(fmt::format("{}: pickle offset {}: the dict has no '{}' (not NATS-Bench's single file)",
                                       source, r.offset, kNatsRecordKey));
  if (infos->kind == Kind::kNone)
    return Status::invalid(
        fmt::format("{}: pickle offset {}: '{}' is None: this is the directory form's "
                    "meta.pickle.pbz2, not the single file; pass the directory that holds it",
                    source, infos->offset, kNatsRecordKey));
  if (infos->kind != Kind::kDict)
    return Status::invalid(fmt::format("{}: pickle offset {}: '{}' is a {}, not a dict", source, infos->offset,
                                       kNatsRecordKey, pickle::kind_name(infos->kind)));
  // Entries the stream could not hand out one by one (a dict not written as EMPTY_DICT +
  // SETITEMS) are in the tree: read them the same way.
  for (const auto& [k, v] : infos->entries) {
    auto more = per_network(*k, *v);
    if (!more) return more.status();
    if (!*more) {
      out.stopped = true;
      return out;
    }
  }
  auto archs = nats_meta_from_pickle(r, source);
  if (!archs) return archs.status();
  if (max_index >= static_cast<int64_t>(archs->size()))
    return Status::invalid(fmt::format("{}: '{}' holds network {} but 'meta_archs' lists {} architectures", source,
                                       kNatsRecordKey, max_index, archs->size()));
  out.archs = std::move(*archs);
  return out;
}

}  // namespace

Expected<NatsDataForm> nats_data_form(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) return NatsDataForm::kDirectory;
  if (std::filesystem::is_regular_file(st)) return NatsDataForm::kSingleFile;
  return Status::invalid(
      fmt::format("{} is not a directory or a file (expected NATS-Bench's "
                  "NATS-sss-v1_0-50262-simple/ or NATS-sss-v1_0-50262.pickle.pbz2)",
                  path));
}

Expected<NatsSingleFileRead> read_nats_single_file(const std::string& path, const NatsNetworkSink& sink,
                                                   const NatsSingleFileOptions& options) {
  auto file = FileSource::open(path);
  if (!file) return file.status();
  return read_stream(**file, (*file)->size(), path, sink, options);
}

Expected<NatsSingleFileRead> read_nats_single_file_bytes(std::string_view compressed, const std::string& source,
                                                         const NatsNetworkSink& sink,
                                                         const NatsSingleFileOptions& options) {
  MemorySource mem(compressed);
  return read_stream(mem, compressed.size(), source, sink, options);
}

}  // namespace rooflens::nas
