#pragma once
// Running the mhtml tool from the CLI tests: exit status and standard output, with an
// optional standard input; temporary input files.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mhtml::test {

struct run_result {
    int status;
    std::string out;
};

/// A shell word that stands for `s` exactly.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') {
            q += "'\\''";
        } else {
            q += c;
        }
    }
    q += '\'';
    return q;
}

/// Runs `mhtml` with the shell command-line tail `args` (already quoted as needed);
/// standard error is discarded.
inline run_result run_cli(const std::string& args) {
    std::string cmd = MHTML_CLI_PATH;
    cmd += ' ';
    cmd += args;
    cmd += " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

/// A file in the temporary folder holding `content`; names are unique per process.
inline std::string temp_file(const std::string& content, const std::string& suffix = "") {
    static int n = 0;
    auto p = std::filesystem::temp_directory_path() /
             ("mhtml_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + suffix);
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
}

/// Runs `mhtml` with each argument quoted, and `stdin_text` (if given) as standard input.
inline run_result run_cli(const std::vector<std::string>& args,
                          const std::string* stdin_text = nullptr) {
    std::string tail;
    for (auto& a : args) {
        if (!tail.empty()) tail += ' ';
        tail += shell_quote(a);
    }
    std::string input;
    if (stdin_text) {
        input = temp_file(*stdin_text);
        tail += " < ";
        tail += shell_quote(input);
    }
    run_result r = run_cli(tail);
    if (stdin_text) std::filesystem::remove(input);
    return r;
}

/// A named pipe in a fresh folder of its own, held open for reading and writing (so that a
/// writer's open never blocks) with room for 1 MiB: what the tool writes into it is read back
/// with drain() once the tool is done.
class fifo_capture {
public:
    fifo_capture() {
        static int n = 0;
        dir_ = std::filesystem::temp_directory_path() /
               ("mhtml_cli_fifo_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
        std::filesystem::create_directories(dir_);
        path_ = dir_ / "out.mhtml";
        if (::mkfifo(path_.c_str(), 0600) == 0)
            fd_ = ::open(path_.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd_ >= 0) ::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
    }
    ~fifo_capture() {
        if (fd_ >= 0) ::close(fd_);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    fifo_capture(const fifo_capture&) = delete;
    fifo_capture& operator=(const fifo_capture&) = delete;
    [[nodiscard]] bool ok() const { return fd_ >= 0; }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }
    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
    std::string drain() {
        std::string out;
        std::array<char, 4096> buf{};
        for (ssize_t k; (k = ::read(fd_, buf.data(), buf.size())) > 0;)
            out.append(buf.data(), static_cast<std::size_t>(k));
        return out;
    }

private:
    std::filesystem::path dir_, path_;
    int fd_ = -1;
};

inline std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

}  // namespace mhtml::test
