// The streaming writer: a 300 MB archive written from files (30 images of 10 MB read from
// disk, base64), into a sink that only counts, so the figure is the writer's own cost.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mhtml/pack/writer.hpp"

namespace {

namespace fs = std::filesystem;

const std::vector<mhtml::pack::resource>& files() {
    static std::vector<mhtml::pack::resource> list = [] {
        std::vector<mhtml::pack::resource> v;
        const fs::path dir =
            fs::temp_directory_path() / ("mhtml_writer_bench_" + std::to_string(getpid()));
        fs::create_directories(dir);
        std::mt19937_64 rng(1);
        std::string block(10 << 20, '\0');
        for (int i = 0; i < 30; ++i) {
            for (std::size_t k = 0; k + 8 <= block.size(); k += 8) {
                const std::uint64_t x = rng();
                std::memcpy(block.data() + k, &x, 8);
            }
            const fs::path f = dir / ("img" + std::to_string(i) + ".png");
            std::ofstream(f, std::ios::binary)
                .write(block.data(), static_cast<std::streamsize>(block.size()));
            mhtml::pack::resource r;
            r.label = "http://bench.example/img" + std::to_string(i) + ".png";
            r.content_type = "image/png";
            r.in_memory = false;
            r.file = f;
            v.push_back(std::move(r));
        }
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(
                fs::temp_directory_path() / ("mhtml_writer_bench_" + std::to_string(getpid())), ec);
        });
        return v;
    }();
    return list;
}

void BM_WriteArchive300MBFromFiles(benchmark::State& state) {
    const auto& others = files();
    mhtml::pack::resource root;
    root.label = "http://bench.example/";
    root.content_type = "text/html";
    root.data = "<!DOCTYPE html><title>bench</title><p>images</p>\r\n";
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        std::uint64_t n = 0;
        mhtml::pack::callback_sink count([&](std::string_view v) {
            n += v.size();
            return true;
        });
        auto report = mhtml::pack::write_archive(count, root, others);
        benchmark::DoNotOptimize(report);
        bytes += n;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 300 * (1 << 20));
    state.counters["archive_MB"] =
        static_cast<double>(bytes) / static_cast<double>(state.iterations()) / 1e6;
}
BENCHMARK(BM_WriteArchive300MBFromFiles)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
