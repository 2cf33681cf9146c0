// Writes sample archives with pack::writer into a directory, each `NAME.mhtml` with
// `NAME.expect`: one line per leaf in document order, "TYPE SHA256" of its decoded content
// ("-" for message/external-body; text with CRLF as LF). python_email_writer.py reads them back
// with Python's email. usage: mhtml_write_samples DIR

#include <openssl/evp.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mhtml/pack/writer.hpp"

namespace {

using mhtml::pack::resource;

std::string sha256(std::string_view s) {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(s.data(), s.size(), d, &n, EVP_sha256(), nullptr);
    std::string hex;
    char b[3];
    for (unsigned i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", d[i]);
        hex += b;
    }
    return hex;
}

resource res(std::string label, std::string type, std::string data) {
    return resource::from_data(std::move(label), std::move(type), std::move(data));
}

struct expected_leaf {
    std::string type, content;
};

void sample(const std::filesystem::path& dir, const std::string& name, const resource& root,
            const std::vector<resource>& others, const std::vector<expected_leaf>& leaves,
            mhtml::pack::writer_options o = {}) {
    std::string out;
    mhtml::pack::string_sink s(out);
    auto r = mhtml::pack::write_archive(s, root, others, o);
    if (!r.ok()) std::exit(2);
    std::ofstream(dir / (name + ".mhtml"), std::ios::binary) << out;
    std::ofstream e(dir / (name + ".expect"));
    // Python's email gives text with LF line ends: text/* is compared with CRLF as LF.
    const auto lf = [](std::string t) {
        for (auto i = t.find("\r\n"); i != std::string::npos; i = t.find("\r\n", i)) t.erase(i, 1);
        return t;
    };
    for (const auto& l : leaves)
        e << l.type << ' '
          << (l.type == "message/external-body"
                  ? "-"
                  : sha256(l.type.starts_with("text/") ? lf(l.content) : l.content))
          << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    std::mt19937 rng(5);
    std::string png(20000, '\0');
    for (auto& c : png) c = static_cast<char>(rng());
    const std::string page =
        "<!DOCTYPE html><title>Caf\xC3\xA9 &amp; co</title><p>x <img src=a.png></p>\r\n";
    const resource root = res("http://x.example/", "text/html; charset=utf-8", page);
    sample(dir, "basic", root, {res("http://x.example/a.png", "image/png", png)},
           {{"text/html", page}, {"image/png", png}});
    mhtml::pack::writer_options late;
    late.root_position = 1;
    sample(dir, "root_second", root, {res("http://x.example/a.png", "image/png", png)},
           {{"image/png", png}, {"text/html", page}}, late);
    const std::string longurl = "http://x.example/" + std::string(150, 'l') + ".png";
    sample(
        dir, "long_and_encoded_labels", root,
        {res(longurl, "image/png", png), res("http://x.example/a b\xC3\xA9.png", "image/png", "P")},
        {{"text/html", page}, {"image/png", png}, {"image/png", "P"}});
    mhtml::pack::writer_options fixed;
    fixed.boundary = "----=_sample";
    const std::string evil = "a\r\n------=_sample\r\nb\xC3\xA9\r\nline with trailing space \r\n";
    sample(dir, "boundary_in_text", root, {res("http://x.example/t.txt", "text/plain", evil)},
           {{"text/html", page}, {"text/plain", evil}}, fixed);
    sample(dir, "lf_text", root, {res("http://x.example/s.css", "text/css", "a{}\nb{}\n")},
           {{"text/html", page}, {"text/css", "a{}\r\nb{}\r\n"}});
    mhtml::pack::writer_options ext;
    ext.external_over = 1000;
    sample(dir, "external", root, {res("http://x.example/a.png", "image/png", png)},
           {{"text/html", page}, {"message/external-body", ""}}, ext);
    mhtml::pack::writer_options mail;
    mail.mail = true;
    mail.from = "J\xC3\xB6rg <j@example.com>";
    mail.to = "a@example.com, \"B, C\" <bc@example.com>";
    resource img = res("", "image/png", png);
    img.content_id = "a1@x.example";
    const std::string html = "<title>Hi</title><p>One</p><p>Two <img src=\"cid:a1@x.example\"></p>";
    sample(
        dir, "mail", res("", "text/html; charset=utf-8", html), {img},
        {{"text/plain", mhtml::pack::html_to_text(html)}, {"text/html", html}, {"image/png", png}},
        mail);
    return 0;
}
