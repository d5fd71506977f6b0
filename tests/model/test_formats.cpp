// safetensors / checkpoint-directory tests: conversions, round trips (bit-identical), sharding,
// and one crafted file per validation error (the message must name the file and tensor).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/errors.h"
#include "formats/checkpoint.h"
#include "formats/fs_util.h"
#include "formats/safetensors.h"

namespace fs = std::filesystem;
using namespace slidedp::formats;

namespace {

std::string tempDir(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("slidedp_formats_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeRaw(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A file with the given header JSON and `dataBytes` zero bytes of data.
std::string craft(const std::string& header, size_t dataBytes) {
  std::string s(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(n >> (8 * i));
  return s + header + std::string(dataBytes, '\0');
}

// Expects open() to throw a UserError whose message contains every string of `needles`.
void expectOpenError(const std::string& path, std::vector<std::string> needles) {
  try {
    SafetensorsFile::open(path);
    FAIL() << "open(" << path << ") did not throw";
  } catch (const slidedp::UserError& e) {
    std::string msg = e.what();
    needles.push_back(path);
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
}

const std::string kStories = std::string(SLIDEDP_SHARED_DIR) + "/models/stories260K";

}  // namespace

TEST(DType, F16RoundTripsEveryValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = f16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(f))));
      continue;
    }
    EXPECT_EQ(floatToF16(f), h) << "h=" << h;
  }
}

TEST(DType, F16RoundsToNearestEven) {
  EXPECT_EQ(f16ToFloat(floatToF16(1.0f + 1.0f / 2048)), 1.0f);                // tie -> even
  EXPECT_EQ(f16ToFloat(floatToF16(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);  // tie -> even
  EXPECT_EQ(f16ToFloat(floatToF16(65520.0f)), INFINITY);
  EXPECT_EQ(f16ToFloat(floatToF16(std::ldexp(1.0f, -25))), 0.0f);  // tie -> 0
  EXPECT_EQ(f16ToFloat(floatToF16(std::ldexp(1.5f, -25))), std::ldexp(1.0f, -24));
}

TEST(DType, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 3.0f / 256)), 1.0f + 2.0f / 128);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = bf16ToFloat(static_cast<uint16_t>(h));
    if (!std::isnan(f)) {
      EXPECT_EQ(floatToBf16(f), h);
    }
  }
}

TEST(Safetensors, WriteReadAllDTypes) {
  std::string dir = tempDir("dtypes");
  std::vector<float> f(2 * 3);
  for (size_t i = 0; i < f.size(); ++i) f[i] = 0.5f * static_cast<float>(i) - 1.25f;
  std::vector<int64_t> i64 = {1, -2, 3};
  std::vector<int32_t> i32 = {7, -8};
  std::vector<TensorToWrite> t = {{"a.f32", DType::F32, {2, 3}, f.data(), DType::F32},
                                  {"b.bf16", DType::BF16, {2, 3}, f.data(), DType::F32},
                                  {"c.f16", DType::F16, {6}, f.data(), DType::F32},
                                  {"d.i64", DType::I64, {3}, i64.data(), DType::I64},
                                  {"e.i32", DType::I32, {2}, i32.data(), DType::I32},
                                  {"f.empty", DType::F32, {0, 4}, nullptr, DType::F32},
                                  {"g.scalar", DType::F32, {}, f.data(), DType::F32}};
  std::string path = dir + "/x.safetensors";
  writeSafetensors(path, t, {{"format", "pt"}});
  auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  ASSERT_EQ(file.tensors().size(), 7u);
  for (const char* n : {"a.f32", "b.bf16", "c.f16"}) {
    const TensorInfo& ti = file.get(n);
    std::vector<float> out(ti.numel());
    file.readFloat32(ti, out.data());
    EXPECT_EQ(out, f) << n;  // these values are exact in every dtype
  }
  EXPECT_EQ(file.get("a.f32").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(file.get("b.bf16").dtype, DType::BF16);
  std::vector<int64_t> o64(3), o32(2);
  file.readInt64(file.get("d.i64"), o64.data());
  file.readInt64(file.get("e.i32"), o32.data());
  EXPECT_EQ(o64, i64);
  EXPECT_EQ(o32, (std::vector<int64_t>{7, -8}));
  EXPECT_EQ(file.get("f.empty").numel(), 0);
  EXPECT_EQ(file.get("g.scalar").numel(), 1);
  EXPECT_EQ(file.find("nope"), nullptr);
  EXPECT_THROW(file.get("nope"), slidedp::UserError);
  std::vector<float> dummy(3);
  EXPECT_THROW(file.readFloat32(file.get("d.i64"), dummy.data()), slidedp::UserError);
  fs::remove_all(dir);
}

TEST(Safetensors, LoadSaveLoadIsBitIdentical) {
  auto ckpt = CheckpointReader::open(kStories);
  std::string dir = tempDir("roundtrip");
  std::vector<std::vector<float>> bufs;
  std::vector<TensorToWrite> t;
  for (const auto& n : ckpt.names()) {
    const TensorInfo& ti = ckpt.get(n);
    bufs.emplace_back(ti.numel());
    ckpt.readFloat32(n, bufs.back().data());
    t.push_back({n, DType::F32, ti.shape, bufs.back().data(), DType::F32});
  }
  writeCheckpoint(dir + "/a", t, 1ull << 40);
  auto again = CheckpointReader::open(dir + "/a");
  ASSERT_EQ(again.names(), ckpt.names());
  for (const auto& n : ckpt.names()) {
    const TensorInfo& x = ckpt.get(n);
    const TensorInfo& y = again.get(n);
    ASSERT_EQ(x.shape, y.shape);
    ASSERT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(0, std::memcmp(ckpt.fileOf(n).data(x), again.fileOf(n).data(y), x.nbytes())) << n;
  }
  // Saving what we loaded again gives the same file, byte for byte.
  writeCheckpoint(dir + "/b", t, 1ull << 40);
  EXPECT_EQ(readAll(dir + "/a/model.safetensors"), readAll(dir + "/b/model.safetensors"));
  fs::remove_all(dir);
}

TEST(Safetensors, ShardedWriteAndRead) {
  std::string dir = tempDir("sharded");
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  std::vector<std::vector<float>> bufs;
  std::vector<TensorToWrite> t;
  for (int i = 0; i < 7; ++i) {
    bufs.emplace_back(100 + 37 * i);
    for (auto& v : bufs.back()) v = nd(rng);
    t.push_back({"w" + std::to_string(i),
                 DType::F32,
                 {static_cast<int64_t>(bufs.back().size())},
                 bufs.back().data(),
                 DType::F32});
  }
  auto files = writeCheckpoint(dir, t, 1200);  // bytes: forces several shards
  ASSERT_GT(files.size(), 2u);
  EXPECT_TRUE(fs::exists(dir + "/model.safetensors.index.json"));
  EXPECT_FALSE(fs::exists(dir + "/model.safetensors"));
  auto r = CheckpointReader::open(dir);
  EXPECT_EQ(r.numFiles(), files.size() - 1);
  for (size_t i = 0; i < t.size(); ++i) {
    std::vector<float> out(bufs[i].size());
    r.readFloat32(t[i].name, out.data());
    EXPECT_EQ(out, bufs[i]);
  }
  // Re-saving as one file removes the stale shards and index.
  writeCheckpoint(dir, t, 1ull << 30);
  EXPECT_FALSE(fs::exists(dir + "/model.safetensors.index.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_EQ(CheckpointReader::open(dir).names().size(), 7u);
  // BF16 shards.
  for (auto& x : t) x.dtype = DType::BF16;
  writeCheckpoint(dir, t, 600);
  auto b = CheckpointReader::open(dir);
  std::vector<float> out(bufs[3].size());
  b.readFloat32("w3", out.data());
  for (size_t k = 0; k < out.size(); ++k) EXPECT_EQ(out[k], bf16ToFloat(floatToBf16(bufs[3][k])));
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, Truncated) {
  std::string dir = tempDir("trunc");
  writeRaw(dir + "/a.safetensors", std::string(5, '\0'));
  expectOpenError(dir + "/a.safetensors", {"truncated"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, HeaderLengthPastEnd) {
  std::string dir = tempDir("hlen");
  std::string s = craft("{}", 0);
  s[0] = 100;  // claims a 100-byte header
  writeRaw(dir + "/a.safetensors", s);
  expectOpenError(dir + "/a.safetensors", {"header length 100", "past the end"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, BadJson) {
  std::string dir = tempDir("json");
  writeRaw(dir + "/a.safetensors", craft("{\"a\": [1, 2", 0));
  expectOpenError(dir + "/a.safetensors", {"not valid JSON"});
  writeRaw(dir + "/b.safetensors", craft("[1]", 0));
  expectOpenError(dir + "/b.safetensors", {"not a JSON object"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, UnknownDType) {
  std::string dir = tempDir("dtype");
  writeRaw(dir + "/a.safetensors",
           craft(R"({"w": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}})", 16));
  expectOpenError(dir + "/a.safetensors", {"'w'", "unsupported dtype 'F64'"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, MissingFields) {
  std::string dir = tempDir("fields");
  writeRaw(dir + "/a.safetensors", craft(R"({"w": {"dtype": "F32", "shape": [2]}})", 8));
  expectOpenError(dir + "/a.safetensors", {"'w'", "data_offsets"});
  writeRaw(dir + "/b.safetensors",
           craft(R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", 8));
  expectOpenError(dir + "/b.safetensors", {"'w'", "negative"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, SizeDisagreesWithShape) {
  std::string dir = tempDir("size");
  writeRaw(dir + "/a.safetensors",
           craft(R"({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 8]}})", 8));
  expectOpenError(dir + "/a.safetensors", {"'w'", "hold 8 bytes", "needs 6"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, OffsetsOutOfBounds) {
  std::string dir = tempDir("oob");
  writeRaw(dir + "/a.safetensors",
           craft(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 12));
  expectOpenError(dir + "/a.safetensors", {"'w'", "outside the data buffer"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, OffsetsOverlap) {
  std::string dir = tempDir("overlap");
  writeRaw(dir + "/a.safetensors",
           craft(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                 12));
  expectOpenError(dir + "/a.safetensors", {"'b'", "overlap", "'a'"});
  fs::remove_all(dir);
}

TEST(SafetensorsErrors, OffsetsLeaveHoles) {
  std::string dir = tempDir("holes");
  writeRaw(dir + "/a.safetensors",
           craft(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                     "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})",
                 12));
  expectOpenError(dir + "/a.safetensors", {"belong to no tensor", "'b'"});
  writeRaw(dir + "/b.safetensors",
           craft(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 8));
  expectOpenError(dir + "/b.safetensors", {"trailing bytes"});
  fs::remove_all(dir);
}

TEST(CheckpointErrors, IndexProblems) {
  std::string dir = tempDir("index");
  std::vector<float> v(4, 1.0f);
  writeSafetensors(dir + "/s1.safetensors", {{"a", DType::F32, {4}, v.data(), DType::F32},
                                             {"b", DType::F32, {4}, v.data(), DType::F32}});
  auto expectDirError = [&](const std::string& index, std::vector<std::string> needles) {
    writeRaw(dir + "/model.safetensors.index.json", index);
    try {
      CheckpointReader::open(dir);
      FAIL() << "no error for " << index;
    } catch (const slidedp::UserError& e) {
      for (const auto& n : needles)
        EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
  };
  expectDirError(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})",
                 {"'b'", "s2.safetensors", "does not exist"});
  expectDirError(R"({"weight_map": {"a": "s1.safetensors", "b": "s1.safetensors",
                     "c": "s1.safetensors"}})",
                 {"'c'", "does not contain"});
  expectDirError(R"({"weight_map": {"a": "s1.safetensors"}})", {"'b'", "does not map"});
  expectDirError(R"({"weight_map": )", {"not valid JSON"});
  writeRaw(dir + "/model.safetensors.index.json",
           R"({"weight_map": {"a": "s1.safetensors", "b": "s1.safetensors"}})");
  EXPECT_EQ(CheckpointReader::open(dir).names().size(), 2u);  // the valid index opens
  fs::remove_all(dir + "/model.safetensors.index.json");
  EXPECT_THROW(CheckpointReader::open(dir), slidedp::UserError);  // no model.safetensors
  fs::remove_all(dir);
}

TEST(CheckpointErrors, TensorsAgainstExpectation) {
  std::string dir = tempDir("expect");
  std::vector<float> v(6, 1.0f);
  writeCheckpoint(dir,
                  {{"a", DType::F32, {2, 3}, v.data(), DType::F32},
                   {"b", DType::BF16, {6}, v.data(), DType::F32},
                   {"extra", DType::F32, {1}, v.data(), DType::F32},
                   {"x.rotary_emb.inv_freq", DType::F32, {1}, v.data(), DType::F32}},
                  1ull << 30);
  auto r = CheckpointReader::open(dir);
  auto ignore = [](const std::string& n) { return n.find("rotary_emb") != std::string::npos; };
  DType f32 = DType::F32;
  try {
    checkTensors(r, {{"a", {3, 2}}, {"b", {6}}, {"c", {1}}}, &f32, ignore);
    FAIL();
  } catch (const slidedp::UserError& e) {
    std::string m = e.what();
    for (const char* n : {"missing tensors (1)", "    c",
                          "'a' has shape [2, 3], the config "
                          "implies [3, 2]",
                          "'b' has dtype BF16", "unexpected tensors (1)", "    extra", dir.c_str()})
      EXPECT_NE(m.find(n), std::string::npos) << n << " not in: " << m;
    EXPECT_EQ(m.find("rotary"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(checkTensors(r, {{"a", {2, 3}}, {"b", {6}}, {"extra", {1}}}, nullptr, ignore));
  fs::remove_all(dir);
}

TEST(FsUtil, DirectoriesAndFiles) {
  std::string root = tempDir("fsutil");
  std::string deep = joinPath(joinPath(root, "a/b"), "c");
  makeDirectories(deep);
  EXPECT_TRUE(isDirectory(deep));
  EXPECT_EQ(parentPath(deep), root + "/a/b");
  EXPECT_EQ(joinPath("x/", "y"), "x/y");
  writeRaw(joinPath(deep, "f.bin"), "hello");
  EXPECT_TRUE(isRegularFile(joinPath(deep, "f.bin")));
  EXPECT_EQ(readFileBytes(joinPath(deep, "f.bin")), "hello");
  EXPECT_EQ(listDirectory(deep), std::vector<std::string>{"f.bin"});
  EXPECT_THROW(readFileBytes(joinPath(deep, "missing")), slidedp::UserError);
  removeTree(joinPath(root, "a"));
  EXPECT_FALSE(pathExists(joinPath(root, "a")));
  removeTree(joinPath(root, "a"));  // absent is fine
  fs::remove_all(root);
}

// Checkpoint checksums (formats/file_digest.h): the digest computed while writing equals the
// digest of the file read back (for fp32 tensors written straight from the caller's memory in
// pieces, and for converted ones), and one changed value is detected with the file named.
TEST(FileDigest, WrittenDigestMatchesTheFileAndDetectsOneChangedValue) {
  const std::string dir = tempDir("digest");
  std::vector<float> big((5u << 20) / 4 + 7);  // more than one 4 MiB piece, odd tail
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : big) x = u(rng);
  const std::vector<int64_t> shape = {static_cast<int64_t>(big.size())};
  for (DType dt : {DType::F32, DType::BF16}) {
    const std::string path = dir + "/d.safetensors";
    FileDigest written;
    writeSafetensors(path, {{"w", dt, shape, big.data(), DType::F32}}, {{"format", "pt"}}, &written);
    const FileDigest read = digestFile(path);
    EXPECT_EQ(written.bytes, read.bytes);
    EXPECT_EQ(written.bytes, readAll(path).size());
    EXPECT_EQ(written.xxh3, read.xxh3);
    EXPECT_EQ(written.xxh3.size(), 16u);
    EXPECT_NO_THROW(verifyFileDigest(path, written));
    std::string bytes = readAll(path);
    bytes[bytes.size() - 3] ^= 0x01;  // one bit of the last value
    writeRaw(path, bytes);
    try {
      verifyFileDigest(path, written);
      ADD_FAILURE() << "a changed value was not detected";
    } catch (const slidedp::UserError& e) {
      EXPECT_NE(std::string(e.what()).find(path + " is damaged"), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}
