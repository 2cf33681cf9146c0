// mhtml_store_lookup DB IDS_FILE: times store::indexed_store::find for each line of IDS_FILE
// ("MESSAGE-ID" or "MESSAGE-ID CONTENT-ID", id_keys without brackets), each in a fresh
// store (cold: the query, mapping the file, parsing the message), then each again in the same
// store (warm). Prints the median, p99 and maximum in microseconds, and how many were found.
// bench/index_peers.sh runs it (docs/PERFORMANCE.md).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mhtml/store/index.hpp"

namespace {
double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: mhtml_store_lookup DB IDS_FILE\n");
        return 2;
    }
    std::vector<std::pair<std::string, std::string>> ids;
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line);) {
        std::istringstream s(line);
        std::string mid, cid;
        s >> mid >> cid;
        if (!mid.empty()) ids.emplace_back(mid, cid);
    }
    using clock = std::chrono::steady_clock;
    std::vector<double> cold, warm;
    std::size_t found = 0;
    mhtml::store::indexed_store shared(argv[1]);
    for (const auto& [mid, cid] : ids) {
        mhtml::store::indexed_store store(argv[1]);
        const auto t0 = clock::now();
        const bool hit = store.find(mid, cid).has_value();
        const auto t1 = clock::now();
        cold.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        found += hit ? 1 : 0;
        (void)shared.find(mid, cid);
        const auto t2 = clock::now();
        (void)shared.find(mid, cid);
        warm.push_back(std::chrono::duration<double, std::micro>(clock::now() - t2).count());
    }
    std::printf(
        "lookups=%zu found=%zu cold_median_us=%.1f cold_p99_us=%.1f cold_max_us=%.1f "
        "warm_median_us=%.1f warm_p99_us=%.1f\n",
        ids.size(), found, percentile(cold, 0.5), percentile(cold, 0.99), percentile(cold, 1.0),
        percentile(warm, 0.5), percentile(warm, 0.99));
    return found == ids.size() ? 0 : 1;
}
