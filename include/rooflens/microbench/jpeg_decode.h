// JPEG decode throughput of this CPU, one core: how many images per second one core of the
// host can decode with libjpeg-turbo (TurboJPEG API), the figure the doctor divides an input
// rate by to say how many cores would keep a device fed ("waiting for input").
//
// The test image is synthetic but photo-like (smooth gradients, objects with sharp edges,
// textured regions and sensor noise), encoded in memory at quality 90 with 4:2:0 chroma
// subsampling, then decoded to packed RGB (3 bytes per pixel) again and again on the calling
// thread. Decode time depends on the entropy-coded data (Huffman decoding of the non-zero DCT
// coefficients is the largest share), so the image must compress like a photo: a flat or
// purely smooth image decodes several times faster than a real one. Quality 90 and 4:2:0 are
// what typical training-set photographs use (camera and web JPEGs; ImageNet's training set
// averages roughly 110 KB per image, about 140 GB over 1.28 M images, and its most common size
// is 500x375: roughly 4-5 bits per pixel, an approximate figure); 4:2:0 halves the chroma planes
// the decoder has to dequantize, inverse-transform and upsample. The result reports the bits per
// pixel reached so a reader can check that claim. libjpeg-turbo's defaults are kept (accurate
// integer IDCT, fancy upsampling): what PIL and torchvision's decoders do by default.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rooflens/microbench/stats.h"
#include "rooflens/util/status.h"

namespace rooflens::microbench {

inline constexpr const char* kJpegDecodeSchema = "rooflens.jpeg_decode/1";

struct ImageSize {
  int width = 0, height = 0;  // pixels
};

// "224x224" -> {224, 224}. Invalid unless WIDTHxHEIGHT with both in [8, 16384].
Expected<ImageSize> parse_image_size(const std::string& text);

enum class ChromaSubsampling { k444, k422, k420 };
std::string_view chroma_subsampling_name(ChromaSubsampling s);  // "4:2:0"

struct JpegDecodeOptions {
  ImageSize size{224, 224};
  int quality = 90;  // 1..100
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  double seconds = 2.0;  // total decode time over all repeats (calibration not included)
  int repeats = 7;       // timed repeats; each runs about seconds / repeats
  uint64_t seed = 1;     // of the synthetic image
};

struct JpegDecodeResult {
  ImageSize size;
  int quality = 0;
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  size_t jpeg_bytes = 0;      // the encoded test image
  double bits_per_pixel = 0;  // jpeg_bytes x 8 / pixels
  size_t decoded_bytes = 0;   // width x height x 3 (packed RGB)
  double psnr_db = 0;         // decoded against the synthetic original (RGB, 8 bit): the encode is photo-grade
  // Images per second on one thread (= one core), one sample per repeat; q1/q3 are the
  // quartiles of the samples (linear interpolation), iqr = q3 - q1.
  SampleStats images_per_s;
  double images_per_s_q1 = 0, images_per_s_q3 = 0, images_per_s_iqr = 0;
  // Images per second of the thread's own CPU time (decodes / CLOCK_THREAD_CPUTIME_ID), one
  // sample per repeat: what a core not shared with other work would reach (time-slicing
  // removed; contention for caches and memory stays). Equals images_per_s when on_cpu is 1.
  SampleStats images_per_cpu_s;
  double decoded_bytes_per_s = 0;  // median images/s x decoded_bytes (B/s of RGB pixels)
  double jpeg_bytes_per_s = 0;     // median images/s x jpeg_bytes (B/s of compressed input)
  double on_cpu = 0;               // median of thread CPU time / wall time per repeat; < 1: the core was shared
  int64_t decodes = 0;             // timed decodes, all repeats
  double seconds = 0;              // timed wall time, all repeats
  double load_average_1m = -1;     // /proc/loadavg at the start; -1 when unreadable
  std::string library;             // "libjpeg-turbo 2.1.5, TurboJPEG tjDecompress2"
  std::string date;                // UTC, ISO 8601, when the measurement started
};

// True when rooflens was built with libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev).
bool jpeg_decode_available();

// A photo-like RGB image (packed, 3 bytes per pixel, rows top to bottom), deterministic in
// the seed: smooth colour gradients, a few flat-shaded objects with sharp edges, textured
// regions and noise. Pure; no library needed.
std::vector<uint8_t> synthetic_photo(ImageSize size, uint64_t seed);

// Encodes synthetic_photo(size, seed) and measures decoding it to RGB on the calling thread.
// Invalid for sizes outside [8, 16384], quality outside 1..100, seconds outside (0, 600] or
// repeats outside 1..1000; unavailable when rooflens was built without TurboJPEG (the
// message names the package) or the library fails.
Expected<JpegDecodeResult> measure_jpeg_decode(const JpegDecodeOptions& options);

// rooflens.jpeg_decode/1: one entry per result, with its role ("model input", "source").
// Date, library and load average are those of the first result.
nlohmann::ordered_json jpeg_decode_json(const std::vector<std::pair<std::string, JpegDecodeResult>>& results);

}  // namespace rooflens::microbench
