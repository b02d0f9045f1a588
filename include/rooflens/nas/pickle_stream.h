// Streaming the pickle reader (pickle.h) over a pickle too large to hold: bytes are pulled in
// chunks from a ByteSource (byte_source.h), and the entries of one dict of the top-level
// dict (`record_key`, e.g. NATS-Bench's 'arch2infos') are handed to a sink one (key, value)
// at a time as soon as each is complete, then dropped. The returned tree holds everything
// else, with that dict left empty. Same opcodes, whitelist, limits and messages as load().
//
// Memory stays bounded whatever the stream's length:
//   - input: one buffer of chunk_bytes + 4 KiB, or chunk_bytes + the longest opcode argument
//     where that is longer; arguments are capped at max_arg_bytes (a longer str/bytes is an
//     unsupported-input error);
//   - tree: the entry being parsed (at most max_record_values values are built for one entry,
//     and before the streamed dict, else an unsupported-input error) plus what lies outside
//     the streamed dict;
//   - memo (BINPUT/MEMOIZE ... BINGET): a pickle may refer back to any earlier object, and
//     Python's pickler memoizes every str, tuple, dict and list. The reader keeps
//       * every entry stored outside the streamed dict, and every numpy dtype or global;
//       * entries of an already handed-out record that are leaves (str, bytes, numbers) for
//         the next memo_window_records records, and for good once a later record refers
//         to one (a string shared by all records, such as a dict key, is stored by the first
//         record and referred to by every later one);
//       * no containers of a handed-out record.
//     A reference to anything released is an invalid-input error naming the offset and memo
//     key, never a wrong value.
// Python writes a dict's items in batches (MARK k v k v ... SETITEMS, 1000 pairs a batch) and
// saves each value whole before the next key; an entry is complete when the next key, a value
// of record_key_kind (NATS-Bench's keys are ints), follows it, or when the batch ends. A dict
// whose values are themselves built from bare values of that kind at the batch level (say
// {0: (1, 2)}, written 0 1 2 TUPLE2) would be split wrongly: that read fails with an error
// (the stream then finds its batch short), never with a partial entry in a finished read. A
// streamed dict written by one SETITEM per item is handed out at each SETITEM; a dict built
// by MARK ... DICT is not streamed (its entries stay in the tree, subject to
// max_record_values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "rooflens/nas/byte_source.h"
#include "rooflens/nas/pickle.h"
#include "rooflens/util/status.h"

namespace rooflens::pickle {

struct StreamOptions {
  std::string record_key;                      // the top-level dict's key whose dict value is streamed
  Kind record_key_kind = Kind::kInt;           // the kind of that dict's keys (see above)
  size_t chunk_bytes = kDefaultChunkBytes;     // pickle bytes pulled from the source at a time
  size_t max_arg_bytes = size_t{16} << 20;     // longest str/bytes one opcode may carry
  size_t max_record_values = size_t{1} << 21;  // values built between two handed-out records
  size_t memo_window_records = 64;             // records whose memoized leaves are kept (see above)
};

// Called once per entry of the streamed dict, in stream order. `key` and `value` are
// validated plain data (as load() returns) and valid only during the call. Return false to
// stop reading (load_streaming then returns a null tree), an error Status to abort.
using RecordSink = std::function<Expected<bool>(const Value& key, const Value& value)>;

struct StreamStats {
  uint64_t pickle_bytes = 0;      // pickle bytes consumed (the offset reached)
  size_t peak_buffer_bytes = 0;   // largest input buffer held
  uint64_t records = 0;           // entries handed to the sink
  size_t peak_record_values = 0;  // most values built between two records
  size_t peak_memo_entries = 0;   // most memo entries held at once
  uint64_t memo_shared = 0;       // leaves kept for good because a later record referred to them
  bool stopped = false;           // the sink asked to stop
};

// Reads one pickle from `in`. `source` names it in messages ("<source>: pickle offset <n>:
// <what>", offsets in the decompressed pickle). Returns the top-level tree (the streamed
// dict emptied), or nullptr when the sink stopped the read. With an empty record_key it
// streams nothing and is load() over a source.
Expected<ValuePtr> load_streaming(ByteSource& in, const std::string& source, const StreamOptions& options,
                                  const RecordSink& sink, StreamStats* stats = nullptr, const Limits& limits = {});

}  // namespace rooflens::pickle
