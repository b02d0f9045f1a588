// Image-classification data in the IDX format (MNIST, Fashion-MNIST): the files the training
// oracle (train_oracle.h) trains and tests on. Plain C++ and zlib: no LibTorch needed.
//
// An IDX file: 2 zero bytes, a type byte (only 0x08 = unsigned byte is read), a rank byte,
// then `rank` big-endian uint32 dimensions, then the elements in row-major order and nothing
// after them. Images are rank 3 (count x rows x cols, magic 0x00000803), labels rank 1
// (count, magic 0x00000801). A file may be gzip-compressed (Debian's dataset-fashion-mnist
// ships *.gz): zlib reads both forms, and offsets in messages count bytes of the
// uncompressed content.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens::train {

// Where Debian's dataset-fashion-mnist puts the four files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// One IDX file's contents.
struct IdxArray {
  std::vector<int64_t> dims;  // rank entries
  std::vector<uint8_t> data;  // product of dims elements, row-major
};

// Reads `path` (plain or gzip) and checks it is an unsigned-byte IDX array of rank
// `expected_rank`. Errors name the file and the offset: unavailable when it cannot be opened;
// invalid input for a corrupt gzip stream, a wrong magic (nonzero first bytes or another
// rank), a zero dimension, fewer data bytes than the dimensions say (truncated) or bytes
// after them; unsupported for an element type other than unsigned byte.
Expected<IdxArray> read_idx_file(const std::string& path, int expected_rank);

// One split of a dataset: `count` grey images of rows x cols bytes (0..255) and their labels.
struct ImageDataset {
  std::string source;  // the image file it came from
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> pixels;  // count * rows * cols, image-major, row-major within an image
  std::vector<uint8_t> labels;  // count, each < classes
  int64_t classes = 0;          // 1 + the largest label
};

// The files of split `split` ("train" or "t10k") in `dir`: <split>-images-idx3-ubyte and
// <split>-labels-idx1-ubyte, each with or without ".gz" (the plain name is tried first).
// Invalid input when the two files disagree on the count; unavailable (naming both names
// tried) when a file is missing.
Expected<ImageDataset> load_idx_split(const std::string& dir, const std::string& split);

// A path for `stem` in `dir` that exists ("dir/stem" or "dir/stem.gz"), or unavailable.
Expected<std::string> find_idx_file(const std::string& dir, const std::string& stem);

}  // namespace rooflens::train
