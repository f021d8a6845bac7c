// Replays fuzz inputs without libFuzzer (any compiler): each argument is a file, or a
// directory whose regular files are all replayed. Exits non-zero if an argument cannot be
// read; an oracle failure aborts, as under libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
bool replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int a = 1; a < argc; ++a) {
    const std::filesystem::path p(argv[a]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) {
      if (!replay(f)) {
        std::fprintf(stderr, "redist-fuzz-replay: cannot read %s\n", f.c_str());
        return 2;
      }
      ++count;
    }
  }
  std::printf("redist-fuzz-replay: %zu inputs replayed, all checks passed\n", count);
  return count > 0 ? 0 : 1;
}
