#pragma once
// Shared by the view tests: messages written with LF turned into CRLF, a sandbox folder
// removed afterwards, and what a folder holds.

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace mhtml::test {

inline std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

inline std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_bytes(const std::filesystem::path& p, std::string_view bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A fresh folder under the system's temporary folder, removed with everything in it.
class sandbox {
public:
    sandbox() {
        std::random_device rd;
        dir_ = std::filesystem::temp_directory_path() /
               ("mhtml-view-test-" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(dir_);
    }
    ~sandbox() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    sandbox(const sandbox&) = delete;
    sandbox& operator=(const sandbox&) = delete;
    const std::filesystem::path& path() const { return dir_; }
    std::filesystem::path operator/(std::string_view name) const { return dir_ / name; }

    /// Every entry under the sandbox, relative, '/'-separated (links not followed).
    std::set<std::string> entries() const {
        std::set<std::string> out;
        for (auto it = std::filesystem::recursive_directory_iterator(dir_);
             it != std::filesystem::recursive_directory_iterator(); ++it)
            out.insert(std::filesystem::relative(it->path(), dir_).generic_string());
        return out;
    }

private:
    std::filesystem::path dir_;
};

}  // namespace mhtml::test
