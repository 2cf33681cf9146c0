// mhtml_pack: mhtml's end-to-end writer, timed by ../shared/bench/run_pack_peers.sh against
// GMime, mimetic and Python's email (docs/PERFORMANCE.md, "Writer").
//
//   mhtml_pack SITE_DIR OUT_FILE
//
// Packs the folder LISTING, as the kit's peers do (peers/sitefiles.h): every regular file
// under SITE_DIR whose name does not start with '.', symbolic links not followed, sorted
// bytewise by relative path, index.html first; each file one part labelled
// http://site.example/<path> (percent-encoded outside A-Z a-z 0-9 - . _ ~ /) with the type
// of its extension (text types with charset=utf-8). No HTML or CSS is parsed to find the
// files (`mhtml pack` does that, through pack::collect). The parts are written by
// pack::writer exactly as `mhtml pack` writes them (7bit / quoted-printable / base64 as the
// content needs), into OUT_FILE through an fd_sink (the peers do not fsync either; `mhtml
// pack` adds file_sink's fsync and rename). Prints "parts=N bytes=M" (N parts written, M
// input octets).

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mhtml/pack/writer.hpp"

namespace {

namespace fs = std::filesystem;

struct site_file {
    std::string rel;
};

// The folder's entries by their dirent type (an lstat only where the file system does not
// give one): the same listing as the peers' one lstat per name, without 20,000 system calls
// on manyfiles. The sizes come from the writer's report (part_report::source_size).
bool walk(const fs::path& root, const std::string& sub, std::vector<site_file>& out) {
    const fs::path dir = sub.empty() ? root : root / sub;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
        std::perror(dir.c_str());
        return false;
    }
    bool ok = true;
    while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        const std::string rel = sub.empty() ? e->d_name : sub + '/' + e->d_name;
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st {};
            if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                std::perror(rel.c_str());
                ok = false;
                break;
            }
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        }
        if (type == DT_DIR) {
            if (!walk(root, rel, out)) {
                ok = false;
                break;
            }
        } else if (type == DT_REG) {
            out.push_back({rel});
        }
    }
    ::closedir(d);
    return ok;
}

std::string site_type(std::string_view rel) {
    static constexpr std::string_view tab[][2] = {
        {"html", "text/html; charset=utf-8"},
        {"htm", "text/html; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"},
        {"txt", "text/plain; charset=utf-8"},
        {"svg", "image/svg+xml"},
        {"png", "image/png"},
        {"jpg", "image/jpeg"},
        {"jpeg", "image/jpeg"},
        {"gif", "image/gif"},
        {"webp", "image/webp"},
        {"ico", "image/x-icon"},
        {"woff", "font/woff"},
        {"woff2", "font/woff2"},
        {"ttf", "font/ttf"},
        {"otf", "font/otf"},
        {"mp4", "video/mp4"},
        {"webm", "video/webm"},
        {"json", "application/json"},
    };
    std::string_view base = rel.substr(rel.rfind('/') + 1);
    const std::size_t dot = base.rfind('.');
    if (dot != std::string_view::npos) {
        std::string ext(base.substr(dot + 1));
        for (char& c : ext)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        for (const auto& row : tab)
            if (ext == row[0]) return std::string(row[1]);
    }
    return "application/octet-stream";
}

std::string site_url(std::string_view rel) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string u = "http://site.example/";
    for (unsigned char c : rel) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            u += static_cast<char>(c);
        } else {
            u += '%';
            u += hex[c >> 4];
            u += hex[c & 15];
        }
    }
    return u;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: mhtml_pack SITE_DIR OUT_FILE\n");
        return 2;
    }
    const fs::path root(argv[1]);
    std::vector<site_file> files;
    if (!walk(root, "", files)) return 2;
    std::sort(files.begin(), files.end(), [](const site_file& a, const site_file& b) {
        const bool ar = a.rel == "index.html", br = b.rel == "index.html";
        if (ar != br) return ar;
        return a.rel < b.rel;
    });
    if (files.empty() || files.front().rel != "index.html") {
        std::fprintf(stderr, "%s: no index.html\n", argv[1]);
        return 2;
    }
    const int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        std::perror(argv[2]);
        return 2;
    }
    mhtml::pack::fd_sink sink(fd);
    std::vector<mhtml::pack::resource> res(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        res[i].label = site_url(files[i].rel);
        res[i].content_type = site_type(files[i].rel);
        res[i].in_memory = false;
        res[i].file = root / files[i].rel;
    }
    // write_archive reads the files ahead on a second thread (writer::expect) and writes
    // behind on another; MHTML_BENCH_NO_READ_AHEAD / MHTML_BENCH_NO_WRITE_BEHIND (set to
    // anything) turn them off, to measure what each one gives.
    mhtml::pack::writer_options o;
    o.read_ahead = std::getenv("MHTML_BENCH_NO_READ_AHEAD") == nullptr;
    o.write_behind = std::getenv("MHTML_BENCH_NO_WRITE_BEHIND") == nullptr;
    const mhtml::pack::write_report rep =
        mhtml::pack::write_archive(sink, res.front(), std::span(res).subspan(1), o);
    if (::close(fd) != 0 || !rep.ok()) {
        std::fprintf(stderr, "%s: %s\n", argv[2],
                     rep.error ? rep.error->message.c_str() : "close failed");
        return 2;
    }
    std::size_t parts = 0;
    std::uint64_t bytes = 0;
    for (const auto& p : rep.parts) {
        parts += p.written ? 1 : 0;
        bytes += p.source_size;
    }
    for (const auto& d : rep.diagnostics)  // notes (line ends made CRLF) are not news here
        if (d.sev >= mhtml::severity::warning) std::fprintf(stderr, "%s\n", d.message.c_str());
    std::printf("parts=%zu bytes=%llu\n", parts, static_cast<unsigned long long>(bytes));
    return parts == files.size() ? 0 : 1;
}
