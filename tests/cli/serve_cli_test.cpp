// mhtml serve on the command line: the URL it prints, the access log, a clean stop on SIGTERM
// (exit 0) and usage errors (exit 2). The server runs as a child process on 127.0.0.1 and a
// free port; every wait is bounded.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "unit/view/view_support.hpp"

extern char** environ;

namespace {

using mhtml::test::run_cli;
using mhtml::test::sandbox;
using mhtml::test::shell_quote;

// Reads from `fd` until `done(text)` or `limit` passes.
template <class Done>
std::string read_until(int fd, std::chrono::milliseconds limit, Done done) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + limit;
    char buf[4096];
    while (!done(out)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

// GET `target` from 127.0.0.1:port on a new connection; the whole response.
std::string get(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return {};
    }
    const std::string req = "GET " + target +
                            " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                            "\r\nConnection: close\r\n\r\n";
    (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    const std::string r =
        read_until(fd, std::chrono::seconds(10), [](const std::string&) { return false; });
    ::close(fd);
    return r;
}

// Waits for `pid` at most `limit`; its exit status, or -1 (then it is killed).
int wait_for(pid_t pid, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int st = 0;
    while (std::chrono::steady_clock::now() < end) {
        if (::waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        ::usleep(20'000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
    return -1;
}

TEST(CliServe, PrintsItsUrlLogsEachRequestAndStopsCleanlyOnSigterm) {
    sandbox box;
    const std::string file = (box / "page.mhtml").string();
    mhtml::test::write_bytes(box / "page.mhtml",
                             mhtml::test::crlf("MIME-Version: 1.0\n"
                                               "Content-Type: multipart/related; boundary=b\n\n"
                                               "--b\nContent-Type: text/html\n"
                                               "Content-Location: http://x.example/\n\n"
                                               "<title>T</title><p>hello</p>\n--b--\n"));
    int out[2], err[2];
    ASSERT_EQ(::pipe(out), 0);
    ASSERT_EQ(::pipe(err), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    posix_spawn_file_actions_addclose(&fa, err[0]);
    std::vector<std::string> args{MHTML_CLI_PATH, "serve",   file, "--port",   "0",
                                  "--json-log",   "--cache", "1M", "--memory", "64M"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, MHTML_CLI_PATH, &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    ::close(err[1]);

    const std::string first = read_until(out[0], std::chrono::seconds(10), [](const auto& s) {
        return s.find('\n') != std::string::npos;
    });
    std::smatch m;
    const std::regex url(R"(^mhtml serve: http://127\.0\.0\.1:(\d+)/ \(1 archive; Ctrl-C stops\))");
    ASSERT_TRUE(std::regex_search(first, m, url)) << first;
    const int port = std::stoi(m[1]);
    const std::string index = get(port, "/");
    EXPECT_EQ(index.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << index;
    const std::regex link(R"(href="/([0-9a-f]{32})/")");
    ASSERT_TRUE(std::regex_search(index, m, link));
    std::string target = "/";  // (in steps: GCC 12's -Wrestrict and "x" + s)
    target += m[1].str();
    target += '/';
    const std::string page = get(port, target);
    EXPECT_NE(page.find("<p>hello</p>"), std::string::npos) << page;

    const std::string log = read_until(err[0], std::chrono::seconds(10), [](const auto& s) {
        return std::count(s.begin(), s.end(), '\n') >= 2;
    });
    EXPECT_NE(log.find(R"("method":"GET","target":"/","status":200)"), std::string::npos) << log;

    ::kill(pid, SIGTERM);
    EXPECT_EQ(wait_for(pid, std::chrono::seconds(10)), 0);
    ::close(out[0]);
    ::close(err[0]);
}

TEST(CliServe, UsageErrorsExitTwo) {
    sandbox box;
    EXPECT_EQ(run_cli("serve " + shell_quote(box.path().string())).status, 2);  // no archive
    EXPECT_EQ(run_cli("serve " + shell_quote((box / "none.mhtml").string())).status, 2);
    mhtml::test::write_bytes(box / "a.mhtml", "MIME-Version: 1.0\r\n\r\n");
    const std::string a = shell_quote((box / "a.mhtml").string());
    EXPECT_EQ(run_cli("serve " + a + " --port 70000").status, 2);
    EXPECT_EQ(run_cli("serve " + a + " --listen not-an-address").status, 2);
    EXPECT_EQ(run_cli("serve " + a + " --cache lots").status, 2);
    EXPECT_EQ(run_cli("serve " + a + " --cache -1").status, 2);
    EXPECT_EQ(run_cli("serve " + a + " --memory 10").status, 2);  // under 1 MiB
    // --store names no index: said, exit 2.
    mhtml::test::write_bytes(box / "not.db", "not a database, just text");
    std::string args = "serve ";  // (in steps: GCC 12's -Wrestrict and "x" + s)
    args += a;
    args += " --store ";
    args += shell_quote((box / "not.db").string());
    args += " 2>";
    args += shell_quote((box / "err.txt").string());
    args += "; exit $?";  // (run_cli discards standard error after this)
    EXPECT_EQ(run_cli(args).status, 2);
    const std::string err = mhtml::test::read_bytes(box / "err.txt");
    EXPECT_NE(err.find("mhtml serve: --store:"), std::string::npos) << err;
}

}  // namespace
