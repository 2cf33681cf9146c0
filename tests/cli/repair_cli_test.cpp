// mhtml repair: files and standard streams, the JSON report, exit codes, --drop-unreferenced
// and --target.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_support.hpp"
#include "support/repair_inputs.hpp"

namespace mhtml {
namespace {

using test::run_cli;
using test::temp_file;
namespace fs = std::filesystem;

// A damaged archive: LF line ends, the root typed text/plain and not first (but named by
// start), no close delimiter, and a part nothing references.
const std::string damaged =
    "MIME-Version: 1.0\n"
    "Content-Type: multipart/related; boundary=\"b\"; type=\"text/plain\"; start=\"<root@x>\"\n"
    "\n"
    "--b\n"
    "Content-Type: image/png\nContent-Location: http://x.example/a.png\n"
    "Content-Transfer-Encoding: base64\n\nAAEC\n"
    "--b\n"
    "Content-Type: text/plain; charset=utf-8\nContent-ID: <root@x>\n"
    "Content-Location: http://x.example/\n\n"
    "<!DOCTYPE html><p>hi<img src=\"a.png\">\n"
    "--b\n"
    "Content-Type: image/png\nContent-Location: http://x.example/lost.png\n"
    "Content-Transfer-Encoding: base64\n\nAAED\n";

std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

TEST(RepairCli, FileToFileWithJsonReport) {
    const std::string in = temp_file(damaged, ".mht");
    const std::string out = in + ".out.mhtml";
    const auto r = run_cli({"repair", in, "-o", out, "--json"});
    EXPECT_EQ(r.status, 1) << r.out;  // no close delimiter: the last part may be cut
    const auto j = nlohmann::json::parse(r.out);
    std::set<std::string> what;
    for (const auto& c : j["changes"]) what.insert(c["what"].get<std::string>());
    EXPECT_TRUE(what.count("root_type"));
    EXPECT_TRUE(what.count("root_moved"));
    EXPECT_EQ(j["incomplete"], nlohmann::json::array({"3"}));
    EXPECT_EQ(j["unreferenced"], nlohmann::json::array({"3"}));
    EXPECT_EQ(j["parts"].size(), 3u);
    EXPECT_EQ(j["parts"][0]["input_part"], "2");
    EXPECT_EQ(j["parts"][0]["content_type"], "text/html; charset=\"utf-8\"");
    const std::string bytes = read(out);
    EXPECT_THAT(bytes, testing::HasSubstr("type=\"text/html\""));
    EXPECT_THAT(bytes, testing::EndsWith("--\r\n"));
    // The check of the output: no MUST finding.
    const auto c = run_cli({"check", "--json", out});
    const auto findings = nlohmann::json::parse(c.out);
    for (const auto& f : findings["findings"]) EXPECT_NE(f["level"], "error") << f.dump();
    fs::remove(in);
    fs::remove(out);
}

TEST(RepairCli, StandardInputToStandardOutputAndIdempotent) {
    const auto a = run_cli({"repair", "-", "-o", "-"}, &damaged);
    EXPECT_EQ(a.status, 1);  // the last part may be cut
    EXPECT_THAT(a.out, testing::HasSubstr("\r\nMIME-Version: 1.0\r\n"));
    const auto b = run_cli({"repair", "-", "-o", "-"}, &a.out);
    EXPECT_EQ(b.status, 0);
    EXPECT_EQ(b.out, a.out);
}

// An output that turns out to need a first pass only once a later document is read: the CLI's
// spool for -o - starts over (fd_sink, may_restart), and standard output gets the archive
// once, the same as a file gets it.
TEST(RepairCli, StandardOutputOfAnOutputThatWidensLate) {
    const std::string in = test::widens_late();
    const auto dash = run_cli({"repair", "-", "-o", "-"}, &in);
    EXPECT_EQ(dash.status, 0);
    const std::string path = temp_file(in, ".mht");
    const std::string out = path + ".out.mhtml";
    EXPECT_EQ(run_cli({"repair", path, "-o", out}).status, 0);
    const std::string file = read(out);
    EXPECT_TRUE(dash.out == file);  // megabytes: not printed
    EXPECT_THAT(file, testing::HasSubstr("<img src=\"thismessage:/a.png\">"));
    EXPECT_EQ(file.find("MIME-Version"), file.rfind("MIME-Version"));  // one archive
    fs::remove(path);
    fs::remove(out);
}

TEST(RepairCli, DropUnreferencedAndTargetRfc) {
    const auto d = run_cli({"repair", "-", "-o", "-", "--drop-unreferenced"}, &damaged);
    // The part that may be cut (the last) is the unreferenced one: left out, so what is
    // written is whole.
    EXPECT_EQ(d.status, 0);
    EXPECT_THAT(d.out, testing::Not(testing::HasSubstr("lost.png")));
    const auto k = run_cli({"repair", "-", "-o", "-", "--target", "rfc"}, &damaged);
    EXPECT_EQ(k.status, 1);
    EXPECT_THAT(k.out, testing::HasSubstr("type=\"text/plain\""));
}

TEST(RepairCli, ExitCodes) {
    // A cut base64 part: written, listed as incomplete, exit 1.
    std::string cut = damaged.substr(0, damaged.find("AAEC") + 3);
    const auto c = run_cli({"repair", "-", "-o", "-"}, &cut);
    EXPECT_EQ(c.status, 1);
    // Nothing to write: exit 2 with the reason.
    const std::string empty = "Content-Type: multipart/related; boundary=\"zz\"\n\nno parts\n";
    const auto e = run_cli({"repair", "-", "-o", "-", "--json"}, &empty);
    EXPECT_EQ(e.status, 2);
    // Usage.
    EXPECT_EQ(run_cli(std::vector<std::string>{"repair", "-"}).status, 2);
    EXPECT_EQ(run_cli({"repair", "/nonexistent/x.mht", "-o", "-"}).status, 2);
}

// -o names a named pipe (or a device, as /dev/null): written through, not replaced by a file
// renamed over it, and no temporary file is left beside it.
TEST(RepairCli, OutputToANamedPipeIsWrittenThroughIt) {
    test::fifo_capture fifo;
    ASSERT_TRUE(fifo.ok());
    const std::string in = temp_file(damaged, ".mht");
    const auto r = run_cli({"repair", in, "-o", fifo.path().string()});
    EXPECT_EQ(r.status, 1);  // the last part may be cut
    EXPECT_TRUE(fs::is_fifo(fifo.path()));
    const std::string bytes = fifo.drain();
    EXPECT_THAT(bytes, testing::HasSubstr("\r\nMIME-Version: 1.0\r\n"));
    EXPECT_THAT(bytes, testing::EndsWith("--\r\n"));
    EXPECT_EQ(std::distance(fs::directory_iterator(fifo.dir()), fs::directory_iterator()), 1);
    fs::remove(in);
}

// -o /dev/stdout, or any name of the file standard output goes to: the archive alone goes
// there, as with -o -, and the report to standard error (not into the same stream).
TEST(RepairCli, OutputToStandardOutputsOwnFileIsTheArchiveAlone) {
    // The input has no Date: each run writes the time it ran, which may differ by a second.
    const auto undated = [](std::string s) {
        const std::size_t at = s.find("Date: ");
        return at == std::string::npos ? s : s.erase(at, s.find("\r\n", at) + 2 - at);
    };
    const std::string in = temp_file(damaged, ".mht");
    const auto dash = run_cli({"repair", in, "-o", "-"});
    const auto dev = run_cli({"repair", in, "-o", "/dev/stdout"});
    EXPECT_EQ(dev.status, dash.status);
    EXPECT_EQ(undated(dev.out), undated(dash.out));
    EXPECT_THAT(dev.out, testing::StartsWith("Date: "));
    EXPECT_THAT(dev.out, testing::EndsWith("--\r\n"));
    // Standard output sent to a file, and -o a link to that same file.
    const fs::path dir = fs::path(temp_file("", ".d"));
    fs::remove(dir);
    fs::create_directory(dir);
    fs::create_symlink(dir / "real.mhtml", dir / "link.mhtml");
    const auto r = run_cli(test::shell_quote(std::string("repair")) + " " + test::shell_quote(in) +
                           " -o " + test::shell_quote((dir / "link.mhtml").string()) + " > " +
                           test::shell_quote((dir / "real.mhtml").string()));
    EXPECT_EQ(r.status, dash.status);
    std::ifstream f(dir / "real.mhtml", std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
    EXPECT_EQ(undated(written), undated(dash.out));
    EXPECT_TRUE(fs::is_symlink(dir / "link.mhtml"));
    fs::remove_all(dir);
    fs::remove(in);
}

// -o a symbolic link: the file it names is replaced, and the link stays a link.
TEST(RepairCli, OutputThroughASymbolicLinkKeepsTheLink) {
    const std::string in = temp_file(damaged, ".mht");
    const fs::path dir = fs::path(temp_file("", ".d"));
    fs::remove(dir);
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "sub" / "real.mhtml") << "old";
    fs::create_symlink("sub/real.mhtml", dir / "link.mhtml");               // relative
    fs::create_symlink(dir / "sub" / "new.mhtml", dir / "dangling.mhtml");  // to no file yet
    for (const char* name : {"link.mhtml", "dangling.mhtml"}) {
        const auto r = run_cli({"repair", in, "-o", (dir / name).string()});
        EXPECT_EQ(r.status, 1) << name;  // the last part may be cut
        EXPECT_TRUE(fs::is_symlink(dir / name)) << name;
    }
    for (const char* name : {"real.mhtml", "new.mhtml"}) {
        std::ifstream f(dir / "sub" / name, std::ios::binary);
        const std::string written((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
        EXPECT_THAT(written, testing::EndsWith("--\r\n")) << name;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "sub"), fs::directory_iterator()), 2);
    fs::remove_all(dir);
    fs::remove(in);
}

}  // namespace
}  // namespace mhtml
