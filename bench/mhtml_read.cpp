// mhtml_read: mhtml's end-to-end reader, timed by bench/run_readers.py (bench/README.md)
// against GMime and Python's email, and by ../shared/bench/run_peers.sh. Reads each FILE
// (a DIR means its regular files in name order), parses the whole MIME tree, decodes every
// leaf body into memory and prints "parts=N bytes=M" (N leaf parts, M decoded octets over
// all inputs).
//
// Decoded content goes into one buffer that is reused from part to part, as
// bench/peers/gmime_read.c does (the shared kit's peers decode into a fresh buffer per
// part; the work of decoding every octet is the same).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "mhtml/mime/document.hpp"

namespace {

std::vector<std::string> expand(int argc, char** argv) {
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::filesystem::path p(argv[i]);
        if (std::filesystem::is_directory(p)) {
            std::vector<std::string> in_dir;
            for (auto& e : std::filesystem::directory_iterator(p))
                if (e.is_regular_file() && e.path().filename().string()[0] != '.')
                    in_dir.push_back(e.path().string());
            std::sort(in_dir.begin(), in_dir.end());
            files.insert(files.end(), in_dir.begin(), in_dir.end());
        } else {
            files.push_back(p.string());
        }
    }
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned long long parts = 0, bytes = 0;
    std::string buf;
    int rc = 0;
    for (const std::string& f : expand(argc, argv)) {
        std::error_code ec;
        auto in = mhtml::input_buffer::open(f, ec);
        if (ec) {
            std::fprintf(stderr, "%s: %s\n", f.c_str(), ec.message().c_str());
            rc = 1;
            continue;
        }
        auto doc = mhtml::mime::document::parse(std::move(in));
        for (std::size_t i = 0; i < doc.size(); ++i) {
            auto p = doc.part(i);
            if (!p.is_leaf()) continue;
            buf.clear();
            p.decode_to(buf);
            ++parts;
            bytes += buf.size();
        }
    }
    std::printf("parts=%llu bytes=%llu\n", parts, bytes);
    return rc;
}
