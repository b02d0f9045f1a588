// JPEG decode throughput (microbench/jpeg_decode.h): a short run gives a positive rate for
// the right image, bad sizes and settings are invalid input, and the synthetic image is a
// deterministic photo-like picture. Rates are checked for sign only: tests never assert on
// wall-clock speed. Measuring cases skip with a reason when rooflens was built without
// TurboJPEG.
#include <gtest/gtest.h>

#include <set>

#include "rooflens/microbench/jpeg_decode.h"

namespace rooflens::microbench {
namespace {

#define SKIP_WITHOUT_TURBOJPEG()                                                                         \
  if (!jpeg_decode_available())                                                                          \
  GTEST_SKIP() << "rooflens was built without libjpeg-turbo's TurboJPEG API (install libturbojpeg0-dev " \
                  "and rebuild)"

JpegDecodeOptions short_run(ImageSize size) {
  JpegDecodeOptions o;
  o.size = size;
  o.seconds = 0.2;
  o.repeats = 5;
  return o;
}

TEST(JpegDecode, ShortRunGivesAPositiveRateForTheRightImage) {
  SKIP_WITHOUT_TURBOJPEG();
  for (ImageSize size : {ImageSize{224, 224}, ImageSize{500, 375}, ImageSize{37, 21}}) {
    auto r = measure_jpeg_decode(short_run(size));
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->size.width, size.width);
    EXPECT_EQ(r->size.height, size.height);
    EXPECT_EQ(r->decoded_bytes, static_cast<size_t>(size.width) * size.height * 3);
    EXPECT_GT(r->images_per_s.median, 0);
    EXPECT_GT(r->images_per_cpu_s.median, 0);
    EXPECT_EQ(r->images_per_s.samples.size(), 5u);
    EXPECT_LE(r->images_per_s_q1, r->images_per_s.median);
    EXPECT_GE(r->images_per_s_q3, r->images_per_s.median);
    EXPECT_NEAR(r->images_per_s_iqr, r->images_per_s_q3 - r->images_per_s_q1, 1e-9);
    EXPECT_NEAR(r->decoded_bytes_per_s, r->images_per_s.median * r->decoded_bytes, 1e-6 * r->decoded_bytes_per_s);
    EXPECT_GT(r->jpeg_bytes, 0u);
    EXPECT_GT(r->decodes, 0);
    EXPECT_GT(r->on_cpu, 0);
    EXPECT_LE(r->on_cpu, 1);
    EXPECT_NE(r->library.find("libjpeg-turbo"), std::string::npos) << r->library;
    // The decode reproduces the picture as a quality-90 JPEG does (not a blank or garbled one);
    // a tiny image is mostly object edges, which 4:2:0 blurs, so only the bound is looser.
    EXPECT_GT(r->psnr_db, size.width >= 100 ? 28 : 20) << size.width << "x" << size.height;
  }
}

TEST(JpegDecode, TestImageCompressesLikeAPhoto) {
  SKIP_WITHOUT_TURBOJPEG();
  // A photo at quality 90, 4:2:0 takes a few bits per pixel; a flat or smooth picture would
  // take well under one and decode several times faster than real data.
  auto r = measure_jpeg_decode(short_run({500, 375}));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_GT(r->bits_per_pixel, 2.0);
  EXPECT_LT(r->bits_per_pixel, 8.0);
  EXPECT_EQ(r->quality, 90);
  EXPECT_EQ(chroma_subsampling_name(r->subsampling), "4:2:0");
}

TEST(JpegDecode, BadSettingsAreInvalidInput) {
  // Checked before the library is needed, so these hold with or without TurboJPEG.
  for (ImageSize size : {ImageSize{0, 224}, ImageSize{224, -1}, ImageSize{7, 224}, ImageSize{224, 20000}}) {
    auto r = measure_jpeg_decode(short_run(size));
    ASSERT_FALSE(r) << size.width << "x" << size.height;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().message();
    EXPECT_NE(r.status().message().find("image size"), std::string::npos) << r.status().message();
  }
  JpegDecodeOptions q = short_run({224, 224});
  q.quality = 0;
  EXPECT_EQ(measure_jpeg_decode(q).status().code(), StatusCode::kInvalidInput);
  JpegDecodeOptions s = short_run({224, 224});
  s.seconds = 0;
  EXPECT_EQ(measure_jpeg_decode(s).status().code(), StatusCode::kInvalidInput);
  JpegDecodeOptions n = short_run({224, 224});
  n.repeats = 0;
  EXPECT_EQ(measure_jpeg_decode(n).status().code(), StatusCode::kInvalidInput);
}

TEST(JpegDecode, UnavailableNamesThePackage) {
  if (jpeg_decode_available()) GTEST_SKIP() << "built with TurboJPEG: nothing to refuse";
  auto r = measure_jpeg_decode(short_run({224, 224}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("libturbojpeg0-dev"), std::string::npos) << r.status().message();
}

TEST(JpegDecode, ParsesImageSizes) {
  auto s = parse_image_size("500x375");
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->width, 500);
  EXPECT_EQ(s->height, 375);
  for (const char* bad : {"", "224", "224x", "x224", "224*224", "224x224x3", "-224x224", "0x224", "4x4", "224x99999",
                          "224 x 224", "224x224 "}) {
    auto r = parse_image_size(bad);
    ASSERT_FALSE(r) << "'" << bad << "'";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find("WIDTHxHEIGHT"), std::string::npos) << r.status().message();
  }
}

TEST(JpegDecode, SyntheticPhotoIsDeterministicAndVaried) {
  const auto a = synthetic_photo({64, 48}, 7), b = synthetic_photo({64, 48}, 7), c = synthetic_photo({64, 48}, 8);
  ASSERT_EQ(a.size(), 64u * 48 * 3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Not flat: many distinct values (noise and texture), not saturated everywhere.
  std::set<uint8_t> values(a.begin(), a.end());
  EXPECT_GT(values.size(), 100u);
}

TEST(JpegDecode, JsonCarriesEveryResult) {
  JpegDecodeResult r;
  r.size = {224, 224};
  r.quality = 90;
  r.images_per_s = summarize({100, 110, 120});
  r.library = "libjpeg-turbo test";
  r.date = "2026-01-01T00:00:00Z";
  r.load_average_1m = 1.5;
  const auto j = jpeg_decode_json({{"model input", r}, {"source", r}});
  EXPECT_EQ(j["schema"], kJpegDecodeSchema);
  EXPECT_EQ(j["library"], "libjpeg-turbo test");
  EXPECT_EQ(j["load_average_1m"], 1.5);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["role"], "model input");
  EXPECT_EQ(j["results"][0]["images_per_s_per_core"]["median"], 110);
  EXPECT_EQ(j["results"][1]["subsampling"], "4:2:0");
}

}  // namespace
}  // namespace rooflens::microbench
