// libbz2's error codes in words, for the whole-buffer (nats_data.cpp) and streaming
// (byte_source.cpp) decompressors.
#pragma once

#include <bzlib.h>

namespace rooflens::nas {

inline const char* bz2_error(int rc) {
  switch (rc) {
    case BZ_DATA_ERROR: return "data integrity error (corrupt or modified stream)";
    case BZ_DATA_ERROR_MAGIC: return "not a bzip2 stream (bad magic)";
    case BZ_MEM_ERROR: return "out of memory";
    case BZ_PARAM_ERROR: return "bad parameter";
    case BZ_CONFIG_ERROR: return "libbz2 misconfigured";
    default: return "decompression error";
  }
}

}  // namespace rooflens::nas
