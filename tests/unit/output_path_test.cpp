// Output-path checks (util/file.h): a command never writes over what it reads, nor into a
// directory as if it were a file.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "rooflens/util/file.h"
#include "test_util.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("rooflens-output-path-" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name, const std::string& text = "x") const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

std::string read(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(OutputPath, RefusesADirectoryByName) {
  TempDir t;
  Status s = check_output_file(t.dir.string(), {}, "-o");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("-o '" + t.dir.string() + "': is a directory"), std::string::npos) << s.message();
}

TEST(OutputPath, RefusesAnInputByAnyName) {
  TempDir t;
  const std::string in = t.file("model.onnx");
  // The same file through a relative path with a detour and through a symbolic link.
  const std::string detour = (t.dir / "." / "model.onnx").string();
  fs::create_symlink(in, t.dir / "link.onnx");
  for (const std::string& out : {in, detour, (t.dir / "link.onnx").string()}) {
    Status s = check_output_file(out, {"v100", in}, "-o");
    ASSERT_FALSE(s) << out;
    EXPECT_NE(s.message().find("is also an input"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(check_output_file(t.file("other.onnx"), {in}, "-o"));
  EXPECT_TRUE(check_output_file((t.dir / "new.onnx").string(), {in}, "-o"));  // not there yet
  EXPECT_TRUE(check_output_file("", {in}, "-o"));                             // stdout
  EXPECT_TRUE(check_output_file("-", {in}, "-o"));
  EXPECT_EQ(read(in), "x");
}

TEST(OutputPath, DirectoryOutputMustNotBeAFile) {
  TempDir t;
  EXPECT_TRUE(check_output_dir(t.dir.string(), "--report"));
  EXPECT_TRUE(check_output_dir((t.dir / "new").string(), "--report"));
  Status s = check_output_dir(t.file("plain.txt"), "--report");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is not a directory"), std::string::npos) << s.message();
}

TEST(OutputPath, AtomicWriteIntoADirectorySaysSoAndLeavesNothing) {
  TempDir t;
  Status s = write_file_atomic(t.dir.string(), "data");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("Success"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_empty(t.dir));
}

}  // namespace
}  // namespace rooflens
