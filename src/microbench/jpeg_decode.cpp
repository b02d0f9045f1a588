// JPEG decode throughput on one core with libjpeg-turbo (see jpeg_decode.h). Built without
// TurboJPEG (ROOFLENS_HAVE_TURBOJPEG undefined), measure_jpeg_decode says which package to
// install; the synthetic image and the JSON do not need the library.
#include "rooflens/microbench/jpeg_decode.h"
#include "rooflens/util/utc_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#ifdef ROOFLENS_HAVE_TURBOJPEG
#include <turbojpeg.h>
#endif

namespace rooflens::microbench {
namespace {

constexpr int kMinSide = 8, kMaxSide = 16384;

// splitmix64: a small deterministic generator, so the image is the same on every machine.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Approximately normal (sum of four uniforms, variance 4/12), scaled to unit variance.
  double normal() { return (uniform() + uniform() + uniform() + uniform() - 2.0) * std::sqrt(3.0); }
};

uint8_t clamp8(double v) { return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 255.0))); }

#ifdef ROOFLENS_HAVE_TURBOJPEG  // helpers of the measurement only

double quartile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double load_average_1m() {
  std::ifstream f("/proc/loadavg");
  double v = -1;
  if (!(f >> v)) return -1;
  return v;
}

double psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    se += d * d;
  }
  const double mse = se / static_cast<double>(a.size());
  return mse > 0 ? 10 * std::log10(255.0 * 255.0 / mse) : 99.0;
}

#endif  // ROOFLENS_HAVE_TURBOJPEG

Status check_options(const JpegDecodeOptions& o) {
  const ImageSize s = o.size;
  if (s.width < kMinSide || s.width > kMaxSide || s.height < kMinSide || s.height > kMaxSide)
    return Status::invalid(fmt::format("jpeg decode: image size {}x{} is outside {}..{} pixels per side", s.width,
                                       s.height, kMinSide, kMaxSide));
  if (o.quality < 1 || o.quality > 100)
    return Status::invalid(fmt::format("jpeg decode: quality {} is outside 1..100", o.quality));
  if (!(o.seconds > 0) || o.seconds > 600)
    return Status::invalid(fmt::format("jpeg decode: seconds {} is outside (0, 600]", o.seconds));
  if (o.repeats < 1 || o.repeats > 1000)
    return Status::invalid(fmt::format("jpeg decode: repeats {} is outside 1..1000", o.repeats));
  return Status::ok();
}

#ifdef ROOFLENS_HAVE_TURBOJPEG

#ifndef ROOFLENS_TURBOJPEG_VERSION
#define ROOFLENS_TURBOJPEG_VERSION "(version unknown)"
#endif

// TurboJPEG 3 (tj3* functions, parameters set with tj3Set) when the header has it, else the
// 2.x API (tjCompress2 / tjDecompress2), which 2.0 and 2.1 ship.
#ifdef TJ_NUMINIT
constexpr bool kTj3 = true;
#else
constexpr bool kTj3 = false;
#endif

struct TjFree {
  void operator()(void* h) const {
#ifdef TJ_NUMINIT
    tj3Destroy(h);
#else
    tjDestroy(h);
#endif
  }
};
using TjHandle = std::unique_ptr<void, TjFree>;

int tj_subsampling(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::k444: return TJSAMP_444;
    case ChromaSubsampling::k422: return TJSAMP_422;
    case ChromaSubsampling::k420: return TJSAMP_420;
  }
  return TJSAMP_420;
}

std::string tj_error(void* handle) {
#ifdef TJ_NUMINIT
  return tj3GetErrorStr(handle);
#else
  return tjGetErrorStr2(handle);
#endif
}

Expected<std::vector<uint8_t>> encode(const std::vector<uint8_t>& rgb, ImageSize s, int quality,
                                      ChromaSubsampling sub) {
  unsigned char* buf = nullptr;
#ifdef TJ_NUMINIT
  TjHandle h(tj3Init(TJINIT_COMPRESS));
  if (!h) return Status::unavailable("jpeg decode: tj3Init(TJINIT_COMPRESS) failed");
  size_t size = 0;
  if (tj3Set(h.get(), TJPARAM_QUALITY, quality) != 0 || tj3Set(h.get(), TJPARAM_SUBSAMP, tj_subsampling(sub)) != 0 ||
      tj3Compress8(h.get(), rgb.data(), s.width, 0, s.height, TJPF_RGB, &buf, &size) != 0) {
    tj3Free(buf);
    return Status::unavailable("jpeg decode: encoding the test image failed: " + tj_error(h.get()));
  }
  std::vector<uint8_t> out(buf, buf + size);
  tj3Free(buf);
#else
  TjHandle h(tjInitCompress());
  if (!h) return Status::unavailable("jpeg decode: tjInitCompress failed");
  unsigned long size = 0;
  if (tjCompress2(h.get(), rgb.data(), s.width, 0, s.height, TJPF_RGB, &buf, &size, tj_subsampling(sub), quality, 0) !=
      0) {
    tjFree(buf);
    return Status::unavailable("jpeg decode: encoding the test image failed: " + tj_error(h.get()));
  }
  std::vector<uint8_t> out(buf, buf + size);
  tjFree(buf);
#endif
  return out;
}

// One decoder with its handle; decode() writes packed RGB into `out` (width x height x 3).
class Decoder {
 public:
  static Expected<Decoder> create() {
#ifdef TJ_NUMINIT
    TjHandle h(tj3Init(TJINIT_DECOMPRESS));
#else
    TjHandle h(tjInitDecompress());
#endif
    if (!h) return Status::unavailable("jpeg decode: cannot create a TurboJPEG decompressor");
    return Decoder(std::move(h));
  }
  // The header's size, checked against the expected one.
  Status check_header(const std::vector<uint8_t>& jpeg, ImageSize expected) {
    int w = 0, h = 0;
#ifdef TJ_NUMINIT
    if (tj3DecompressHeader(h_.get(), jpeg.data(), jpeg.size()) != 0)
      return Status::unavailable("jpeg decode: reading the header failed: " + tj_error(h_.get()));
    w = tj3Get(h_.get(), TJPARAM_JPEGWIDTH);
    h = tj3Get(h_.get(), TJPARAM_JPEGHEIGHT);
#else
    int sub = 0, cs = 0;
    if (tjDecompressHeader3(h_.get(), jpeg.data(), jpeg.size(), &w, &h, &sub, &cs) != 0)
      return Status::unavailable("jpeg decode: reading the header failed: " + tj_error(h_.get()));
#endif
    if (w != expected.width || h != expected.height)
      return Status::internal(fmt::format("jpeg decode: the encoded image is {}x{}, expected {}x{}", w, h,
                                          expected.width, expected.height));
    return Status::ok();
  }
  bool decode(const std::vector<uint8_t>& jpeg, ImageSize s, uint8_t* out) {
#ifdef TJ_NUMINIT
    (void)s;
    return tj3Decompress8(h_.get(), jpeg.data(), jpeg.size(), out, 0, TJPF_RGB) == 0;
#else
    return tjDecompress2(h_.get(), jpeg.data(), static_cast<unsigned long>(jpeg.size()), out, s.width, 0, s.height,
                         TJPF_RGB, 0) == 0;
#endif
  }
  std::string error() { return tj_error(h_.get()); }

 private:
  explicit Decoder(TjHandle h) : h_(std::move(h)) {}
  TjHandle h_;
};

#endif  // ROOFLENS_HAVE_TURBOJPEG

}  // namespace

Expected<ImageSize> parse_image_size(const std::string& text) {
  const std::string rule = fmt::format("'{}' is not an image size WIDTHxHEIGHT with sides in {}..{} (e.g. 224x224)",
                                       text, kMinSide, kMaxSide);
  const size_t x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 >= text.size()) return Status::invalid(rule);
  ImageSize s;
  for (auto [part, out] : {std::pair{text.substr(0, x), &s.width}, std::pair{text.substr(x + 1), &s.height}}) {
    if (part.size() > 5 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return Status::invalid(rule);
    *out = std::stoi(part);
    if (*out < kMinSide || *out > kMaxSide) return Status::invalid(rule);
  }
  return s;
}

std::string_view chroma_subsampling_name(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::k444: return "4:4:4";
    case ChromaSubsampling::k422: return "4:2:2";
    case ChromaSubsampling::k420: return "4:2:0";
  }
  return "?";
}

bool jpeg_decode_available() {
#ifdef ROOFLENS_HAVE_TURBOJPEG
  return true;
#else
  return false;
#endif
}

std::vector<uint8_t> synthetic_photo(ImageSize size, uint64_t seed) {
  const int w = std::max(size.width, 1), h = std::max(size.height, 1);
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * h * 3);
  Rng rng{seed * 0x2545f4914f6cdd1dULL + 1};
  const double side = std::min(w, h);
  constexpr double kPi = 3.14159265358979323846;
  constexpr double kLumaNoise = 9.0, kChromaNoise = 1.5;

  // Objects: ellipses and rectangles with their own colour and a shading gradient; their
  // borders are the sharp edges of a photo (aliased, as after camera sharpening).
  struct Object {
    bool ellipse;
    double cx, cy, rx, ry, r, g, b, shade;
  };
  std::vector<Object> objects;
  for (int i = 0; i < 7; ++i)
    objects.push_back({rng.uniform() < 0.5, rng.uniform() * w, rng.uniform() * h, (0.08 + 0.22 * rng.uniform()) * side,
                       (0.08 + 0.22 * rng.uniform()) * side, 30 + 200 * rng.uniform(), 30 + 200 * rng.uniform(),
                       30 + 200 * rng.uniform(), 40 * (rng.uniform() - 0.5)});
  // Texture: a few oriented high-frequency waves (foliage, fabric, fur), present where a
  // low-frequency mask is high, i.e. on part of the image only.
  struct Wave {
    double fx, fy, phase, amp;
  };
  std::vector<Wave> waves;
  for (int i = 0; i < 4; ++i) {
    const double period = 2.5 + 6 * rng.uniform(), angle = kPi * rng.uniform();
    waves.push_back(
        {std::cos(angle) / period, std::sin(angle) / period, 2 * kPi * rng.uniform(), 6 + 8 * rng.uniform()});
  }
  const double mask_phase = 2 * kPi * rng.uniform();

  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double u = static_cast<double>(x) / w, v = static_cast<double>(y) / h;
      // Smooth background: sky-like gradient with slow colour variation.
      double r = 60 + 140 * u + 30 * std::sin(2 * kPi * 1.3 * v + mask_phase);
      double g = 80 + 110 * v + 25 * std::cos(2 * kPi * 0.8 * (u + v));
      double b = 170 - 90 * u + 40 * v;
      for (const Object& o : objects) {
        const double dx = (x - o.cx) / o.rx, dy = (y - o.cy) / o.ry;
        const bool inside = o.ellipse ? dx * dx + dy * dy <= 1 : std::fabs(dx) <= 1 && std::fabs(dy) <= 1;
        if (inside) {
          r = o.r + o.shade * dy;
          g = o.g + o.shade * dy;
          b = o.b + o.shade * dx;
        }
      }
      const double mask = 0.5 + 0.5 * std::sin(2 * kPi * (1.7 * u + 1.1 * v) + mask_phase);
      double tex = 0;
      for (const Wave& wv : waves) tex += wv.amp * std::sin(2 * kPi * (wv.fx * x + wv.fy * y) + wv.phase);
      tex *= mask;
      // Noise, in 8-bit levels (standard deviation): mostly luminance, as in a camera after
      // demosaicing and denoising; independent per-channel noise would be chroma detail that
      // 4:2:0 throws away, making the JPEG both smaller and less faithful than a photo's.
      const double luma_noise = kLumaNoise * rng.normal();
      uint8_t* p = &rgb[(static_cast<size_t>(y) * w + x) * 3];
      p[0] = clamp8(r + tex + luma_noise + kChromaNoise * rng.normal());
      p[1] = clamp8(g + tex + luma_noise + kChromaNoise * rng.normal());
      p[2] = clamp8(b + tex + luma_noise + kChromaNoise * rng.normal());
    }
  return rgb;
}

Expected<JpegDecodeResult> measure_jpeg_decode(const JpegDecodeOptions& o) {
  ROOFLENS_RETURN_IF_ERROR(check_options(o));
#ifndef ROOFLENS_HAVE_TURBOJPEG
  return Status::unavailable(
      "jpeg decode: rooflens was built without libjpeg-turbo's TurboJPEG API; install the Debian package "
      "libturbojpeg0-dev (scripts/install-deps.sh) and rebuild");
#else
  using Clock = std::chrono::steady_clock;
  JpegDecodeResult r;
  r.size = o.size;
  r.quality = o.quality;
  r.subsampling = o.subsampling;
  r.load_average_1m = load_average_1m();
  r.date = utc_now();
  r.library = fmt::format("libjpeg-turbo {}, TurboJPEG {}", ROOFLENS_TURBOJPEG_VERSION,
                          kTj3 ? "tj3Decompress8" : "tjDecompress2");

  const std::vector<uint8_t> original = synthetic_photo(o.size, o.seed);
  auto jpeg = encode(original, o.size, o.quality, o.subsampling);
  if (!jpeg) return jpeg.status();
  r.jpeg_bytes = jpeg->size();
  const double pixels = static_cast<double>(o.size.width) * o.size.height;
  r.bits_per_pixel = 8.0 * static_cast<double>(r.jpeg_bytes) / pixels;
  r.decoded_bytes = original.size();

  auto dec = Decoder::create();
  if (!dec) return dec.status();
  ROOFLENS_RETURN_IF_ERROR(dec->check_header(*jpeg, o.size));
  std::vector<uint8_t> out(r.decoded_bytes);
  if (!dec->decode(*jpeg, o.size, out.data()))
    return Status::unavailable("jpeg decode: decoding the test image failed: " + dec->error());
  r.psnr_db = psnr(original, out);

  // Calibration (also the warm-up: caches, page faults of `out`, the clock): decode until
  // 5% of the budget (at least 20 ms) has passed, then size each repeat from the rate seen.
  const double calibrate_s = std::max(0.02, 0.05 * o.seconds);
  int64_t n = 0;
  const auto c0 = Clock::now();
  double elapsed = 0;
  while (elapsed < calibrate_s) {
    if (!dec->decode(*jpeg, o.size, out.data()))
      return Status::unavailable("jpeg decode: decoding failed: " + dec->error());
    ++n;
    elapsed = std::chrono::duration<double>(Clock::now() - c0).count();
  }
  const double per_image = elapsed / static_cast<double>(n);
  const int64_t per_repeat = std::max<int64_t>(1, std::llround(o.seconds / o.repeats / std::max(per_image, 1e-9)));

  std::vector<double> rates, cpu_rates, on_cpu;
  for (int rep = 0; rep < o.repeats; ++rep) {
    const double cpu0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < per_repeat; ++i)
      if (!dec->decode(*jpeg, o.size, out.data()))
        return Status::unavailable("jpeg decode: decoding failed: " + dec->error());
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const double cpu = thread_cpu_seconds() - cpu0;
    rates.push_back(static_cast<double>(per_repeat) / wall);
    cpu_rates.push_back(cpu > 0 ? static_cast<double>(per_repeat) / cpu : rates.back());
    on_cpu.push_back(wall > 0 ? std::min(1.0, cpu / wall) : 1.0);
    r.decodes += per_repeat;
    r.seconds += wall;
  }
  r.images_per_s = summarize(rates, true);
  r.images_per_s_q1 = quartile(rates, 0.25);
  r.images_per_s_q3 = quartile(rates, 0.75);
  r.images_per_s_iqr = r.images_per_s_q3 - r.images_per_s_q1;
  r.decoded_bytes_per_s = r.images_per_s.median * static_cast<double>(r.decoded_bytes);
  r.jpeg_bytes_per_s = r.images_per_s.median * static_cast<double>(r.jpeg_bytes);
  r.images_per_cpu_s = summarize(cpu_rates, true);
  r.on_cpu = summarize(on_cpu, true).median;
  return r;
#endif
}

nlohmann::ordered_json jpeg_decode_json(const std::vector<std::pair<std::string, JpegDecodeResult>>& results) {
  using json = nlohmann::ordered_json;
  json arr = json::array();
  const JpegDecodeResult first = results.empty() ? JpegDecodeResult{} : results.front().second;
  for (const auto& [role, r] : results) {
    arr.push_back({{"role", role},
                   {"width", r.size.width},
                   {"height", r.size.height},
                   {"quality", r.quality},
                   {"subsampling", chroma_subsampling_name(r.subsampling)},
                   {"jpeg_bytes", r.jpeg_bytes},
                   {"bits_per_pixel", r.bits_per_pixel},
                   {"psnr_db", r.psnr_db},
                   {"decoded_bytes", r.decoded_bytes},
                   {"images_per_s_per_core",
                    {{"median", r.images_per_s.median},
                     {"q1", r.images_per_s_q1},
                     {"q3", r.images_per_s_q3},
                     {"iqr", r.images_per_s_iqr},
                     {"best", r.images_per_s.best},
                     {"worst", r.images_per_s.worst},
                     {"samples", r.images_per_s.samples}}},
                   {"images_per_cpu_s",
                    {{"median", r.images_per_cpu_s.median},
                     {"best", r.images_per_cpu_s.best},
                     {"worst", r.images_per_cpu_s.worst},
                     {"samples", r.images_per_cpu_s.samples}}},
                   {"decoded_bytes_per_s", r.decoded_bytes_per_s},
                   {"jpeg_bytes_per_s", r.jpeg_bytes_per_s},
                   {"on_cpu", r.on_cpu},
                   {"decodes", r.decodes},
                   {"seconds", r.seconds}});
  }
  return {{"schema", kJpegDecodeSchema},
          {"date", first.date},
          {"library", first.library},
          {"threads", 1},
          {"load_average_1m", first.load_average_1m >= 0 ? json(first.load_average_1m) : json(nullptr)},
          {"results", arr}};
}

}  // namespace rooflens::microbench
