// NATS-Bench's size-space (SSS) data in its single-file form, `NATS-sss-v1_0-50262.pickle.pbz2`
// (one bzip2 stream, about 1.1 GB, of one pickle of several GB holding all 32768 networks),
// read as a stream in bounded memory: the file is decompressed chunk by chunk (byte_source.h)
// into the streaming pickle reader (pickle_stream.h), which hands over one network at a time;
// each is read by the same typed walk as a per-network file of the directory form
// (nats_network_from_pickle) and then dropped. Units and structs as in nats_data.h.
//
// The layout, from the benchmark's own code:
//   - written by D-X-Y/AutoDL-Projects exps/NATS-Bench/sss-collect.py (`simplify`) with one
//     pickle_save (D-X-Y/NATS-Bench nats_bench/api_utils.py: bz2.BZ2File + pickle.dump,
//     protocol 4) of the dict
//       {'meta_archs': [32768 arch strings], 'total_archs': 32768,
//        'arch2infos': {index: OrderedDict({'01': state, '12': state, '90': state})},
//        'evaluated_indexes': {indices}}
//     where each arch2infos value is the very object (`to_save_data`) the same script saves
//     as the directory form's NNNNNN.pickle.pbz2; the directory's meta.pickle.pbz2 is this
//     dict with arch2infos None and evaluated_indexes empty;
//   - read by D-X-Y/NATS-Bench nats_bench/api_size.py (`NATSsize.__init__`): a file path is
//     pickle_load-ed whole and must hold 'meta_archs', 'arch2infos' and 'evaluated_indexes';
//     each (hp, state) of arch2infos[index] becomes ArchResults.create_from_state_dict(state),
//     exactly what api_utils.py `NASBenchMetaAPI.reload` does with one per-network file.
//
// Memory while reading (pickle_stream.h has the details): about 3.6 MB of libbz2 state, one
// compressed chunk, one pickle buffer of at most chunk + 16 MB (the longest string allowed;
// the benchmark's are under 200 bytes), the network being parsed (a few MB), meta_archs
// (32768 short strings) and a bounded window of memoized strings: some tens of MB in all,
// whatever the file's size, plus whatever the sink keeps.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/pickle_stream.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// The top-level key whose entries are the networks.
constexpr const char* kNatsRecordKey = "arch2infos";

enum class NatsDataForm { kDirectory, kSingleFile };
// Which form `path` is: a directory (NATS-sss-v1_0-50262-simple/) or a regular file (the
// single file). Invalid input naming the path when it is neither.
Expected<NatsDataForm> nats_data_form(const std::string& path);

struct NatsReadProgress {
  uint64_t compressed_read = 0;   // bytes of the file consumed so far
  uint64_t compressed_total = 0;  // the file's size
  uint64_t pickle_bytes = 0;      // decompressed so far
  uint64_t networks = 0;          // networks read so far
};

struct NatsSingleFileOptions {
  size_t chunk_bytes = kDefaultChunkBytes;  // compressed bytes read at a time (and pickle bytes)
  // Called after every `progress_every` networks and once at the end.
  std::function<void(const NatsReadProgress&)> progress;
  uint64_t progress_every = 256;
  pickle::StreamOptions stream;  // limits of the streaming reader (record_key and chunk_bytes are set here)
};

// Called once per network in file order (index order in the benchmark's file); return false
// to stop reading there.
using NatsNetworkSink = std::function<Expected<bool>(int64_t index, NatsNetwork&& network)>;

struct NatsSingleFileRead {
  std::vector<std::string> archs;  // meta_archs; empty when the sink stopped the read early
  uint64_t networks = 0;           // networks handed to the sink
  bool stopped = false;            // the sink stopped the read
  pickle::StreamStats stats;       // of the pickle reader (peak buffer, memo, ...)
  size_t bz2_buffered_bytes = 0;   // the decompressor's own input buffer
};

// Streams `path`. Every network's hps must name its own index (arch_index). Errors name the
// file and where: "<path>: bzip2: ... (compressed byte <n>)" (+ " after <m> bytes of pickle"
// once some came out),
// "<path>: pickle offset <n>: ...", or "<path> arch2infos[<i>]: hp '12' (pickle offset <n>)
// ..." for a network's structure. Handing it the directory form's meta.pickle.pbz2 says so.
Expected<NatsSingleFileRead> read_nats_single_file(const std::string& path, const NatsNetworkSink& sink,
                                                   const NatsSingleFileOptions& options = {});
// The same over a file's bytes in memory (`source` names them in messages); tests and fuzz.
Expected<NatsSingleFileRead> read_nats_single_file_bytes(std::string_view compressed, const std::string& source,
                                                         const NatsNetworkSink& sink,
                                                         const NatsSingleFileOptions& options = {});

}  // namespace rooflens::nas
