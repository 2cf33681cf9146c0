// mhtml: the command-line tool. One subcommand per cmd_<verb>.cpp.

#include <charconv>
#include <iostream>
#include <map>
#include <optional>

#ifdef MHTML_WITH_MIMALLOC
#include <mimalloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#endif

#include "commands.hpp"
#include "json.hpp"
#include "mhtml/external/retrieve.hpp"
#include "mhtml/mime/document.hpp"
#include "mhtml/store/index.hpp"
#include "mhtml/store/maildir.hpp"
#include "mhtml/store/mbox.hpp"
#include "mhtml/version.hpp"

namespace mhtml::cli {

namespace {

#ifdef MHTML_WITH_MIMALLOC
// A number a /proc/sys file holds (-1 when it cannot be read).
long proc_number(const char* path) {
    long v = -1;
    if (std::FILE* f = std::fopen(path, "re")) {
        if (std::fscanf(f, "%ld", &v) != 1) v = -1;
        std::fclose(f);
    }
    return v;
}

/// mimalloc's memory in 2 MiB pages where the kernel gives them (transparent huge pages,
/// madvise): the heap of 100,000 parts' records is then a few hundred page faults, not
/// 40,000, and on a virtual machine each costs microseconds (tools/mhtml/CMakeLists.txt,
/// docs/PERFORMANCE.md, "Repair").
/// - An arena of 1 GiB of address space, advised so and handed to mimalloc, which takes its
///   segments and its large blocks from it first (only what is touched takes memory; past it,
///   memory comes from the system as before). Not where the kernel commits every mapping
///   (vm.overcommit_memory 2): there it would be charged 1 GiB.
/// - Its other blocks from the system advised so too (mi_option_large_os_pages), unless the
///   machine keeps a pool of hugetlbfs pages (vm.nr_hugepages): mimalloc would first take
///   those, which a database or a virtual machine may have reserved for itself.
/// - The segment that the allocations before main() went to (32 MiB, aligned to its size):
///   mimalloc read its options when the process started. Advice only: where that is not so,
///   nothing changes.
/// - Freed memory kept for reuse, not handed back to be faulted in again: the tool's runs are
///   short (`serve` hands it back: memory_for_long_runs).
void enable_huge_pages() {
    if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re")) {
        char line[128] = {};
        const bool read = std::fgets(line, sizeof line, f) != nullptr;
        std::fclose(f);
        if (!read || (!std::strstr(line, "[always]") && !std::strstr(line, "[madvise]"))) return;
    } else {
        return;
    }
    if (proc_number("/proc/sys/vm/nr_hugepages") == 0) mi_option_enable(mi_option_large_os_pages);
    mi_option_disable(mi_option_allow_decommit);
    if (proc_number("/proc/sys/vm/overcommit_memory") != 2) {
        constexpr std::size_t arena = std::size_t{1} << 30, align = std::size_t{64} << 20;
        void* const raw = ::mmap(nullptr, arena + align, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw != MAP_FAILED) {
            // Aligned as mimalloc aligns its segments (a multiple of their 32 MiB).
            auto* const start = reinterpret_cast<char*>(
                (reinterpret_cast<std::uintptr_t>(raw) + align - 1) & ~(align - 1));
            ::madvise(start, arena, MADV_HUGEPAGE);
            if (!mi_manage_os_memory(start, arena, /*is_committed=*/true, /*is_large=*/false,
                                     /*is_zero=*/true, /*numa_node=*/-1))
                ::munmap(raw, arena + align);
        }
    }
    constexpr std::uintptr_t segment = std::uintptr_t{32} << 20;
    void* const probe = mi_malloc(16);
    if (!probe) return;
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(probe) & ~(segment - 1);
    ::madvise(reinterpret_cast<void*>(at), segment, MADV_HUGEPAGE);
    mi_free(probe);
}
#endif

std::optional<std::string> selected_message;  // --message: a number from 1, or a Message-ID
std::optional<std::string> store_db;          // --store
std::unique_ptr<store::indexed_store> opened_store;
std::optional<store::message_origin> message_origin;  // --message of an mbox: where it lies

// A Message-ID field's id (mime::parse_msg_id: brackets and comments dropped), or "".
std::string message_id_of(std::string_view value) {
    return mime::parse_msg_id(value).value_or(std::string());
}
}  // namespace

void memory_for_long_runs() {
#ifdef MHTML_WITH_MIMALLOC
    mi_option_enable(mi_option_allow_decommit);
#endif
}

void add_message_option(CLI::App& cmd) {
    cmd.add_option_function<std::string>(
        "--message", [](const std::string& v) { selected_message = v; },
        "read one message of an mbox mailbox: its number (from 1, as 'mhtml ls MAILBOX' lists "
        "them) or its Message-ID (<...> for one made of digits)");
}

bool message_selected() {
    return selected_message.has_value();
}

void add_store_option(CLI::App& cmd) {
    cmd.add_option_function<std::string>(
        "--store", [](const std::string& v) { store_db = v; },
        "resolve mid: URLs that name other messages through this index (made by 'mhtml index')");
}

const archive::message_store* selected_store() {
    if (!store_db) return nullptr;
    if (!opened_store) opened_store = std::make_unique<store::indexed_store>(*store_db);
    return opened_store.get();
}

namespace {

// --message on a Maildir: the file of message N (in the order `mhtml ls` lists them) or of the
// Message-ID.
std::optional<input_buffer> maildir_message(std::string_view command, const std::string& folder) {
    const store::maildir_listing listing = store::list_maildir(folder);
    const std::string& asked = *selected_message;
    std::optional<std::size_t> chosen;
    const bool bracketed = asked.size() >= 2 && asked.front() == '<' && asked.back() == '>';
    if (!bracketed) {
        std::size_t n = 0;
        const auto [end, err] = std::from_chars(asked.data(), asked.data() + asked.size(), n);
        if (err == std::errc() && end == asked.data() + asked.size() && !asked.empty() && n >= 1 &&
            n <= listing.messages.size())
            chosen = n - 1;
    }
    const std::string want = message_id_of(asked);
    for (std::size_t i = 0; i < listing.messages.size() && !chosen && !want.empty(); ++i) {
        std::error_code ec;
        input_buffer in = input_buffer::open(listing.messages[i].path.string(), ec);
        if (ec) continue;
        const auto doc = mime::document::parse(std::string(in.bytes()));
        const auto f = doc.root().header("Message-ID");
        if (f && message_id_of(f->value()) == want) chosen = i;
    }
    if (!chosen) {
        std::cerr << "mhtml " << command << ": " << folder << " has no message "
                  << (asked.empty() ? std::string("''") : printable(asked, 200)) << " ("
                  << listing.messages.size()
                  << (listing.messages.size() == 1 ? " message" : " messages") << ", maildir)\n";
        return std::nullopt;
    }
    const std::string path = listing.messages[*chosen].path.string();
    std::error_code ec;
    input_buffer in = input_buffer::open(path, ec);
    if (ec) {
        std::cerr << "mhtml " << command << ": cannot read " << printable(path, 400) << ": "
                  << ec.message() << '\n';
        return std::nullopt;
    }
    std::cerr << "mhtml " << command << ": message " << *chosen + 1 << " of " << folder << " ("
              << printable(path, 400) << ")\n";
    return in;
}

}  // namespace

std::optional<input_buffer> open_input(std::string_view command, const std::string& file) {
    if (selected_message && store::is_maildir(file)) return maildir_message(command, file);
    std::error_code ec;
    // Mapped: of a mailbox, only the pages of the message selected are read.
    input_buffer in = input_buffer::open(file, ec);
    const std::string name = file == "-" ? "standard input" : file;
    if (ec) {
        std::cerr << "mhtml " << command << ": cannot read " << name << ": " << ec.message()
                  << '\n';
        return std::nullopt;
    }
    if (!selected_message) return in;
    const std::string& asked = *selected_message;
    const store::mbox_split split = store::split_mbox(in.bytes());
    const auto id_of = [&](const store::mbox_message& m) {
        const auto doc = mime::document::parse(
            store::unquote(in.bytes().substr(m.offset, m.size), split.format));
        const auto f = doc.root().header("Message-ID");
        return f ? message_id_of(f->value()) : std::string();
    };
    std::optional<std::size_t> chosen;
    const bool bracketed = asked.size() >= 2 && asked.front() == '<' && asked.back() == '>';
    if (!bracketed) {  // a number first
        std::size_t n = 0;
        const auto [end, err] = std::from_chars(asked.data(), asked.data() + asked.size(), n);
        if (err == std::errc() && end == asked.data() + asked.size() && !asked.empty() && n >= 1 &&
            n <= split.messages.size())
            chosen = n - 1;
    }
    const std::string want = message_id_of(asked);
    for (std::size_t i = 0; i < split.messages.size() && !chosen && !want.empty(); ++i)
        if (id_of(split.messages[i]) == want) chosen = i;
    if (!chosen) {
        std::cerr << "mhtml " << command << ": " << name << " has no message "
                  << (asked.empty() ? std::string("''") : printable(asked, 200)) << " ("
                  << split.messages.size()
                  << (split.messages.size() == 1 ? " message" : " messages") << ", "
                  << store::mbox_format_name(split.format) << ")\n";
        return std::nullopt;
    }
    const store::mbox_message& m = split.messages[*chosen];
    std::cerr << "mhtml " << command << ": message " << *chosen + 1 << " of " << name
              << " (mailbox offset " << m.offset << ", " << m.size
              << " octets); offsets in the input below are offsets in the mailbox file\n";
    message_origin.emplace();
    message_origin->offset = m.offset;
    if (!m.quoted || split.format == store::mbox_format::mboxcl2) {
        in.narrow(m.offset, m.size);  // read in place
        return in;
    }
    return input_buffer::from_string(
        store::unquote(in.bytes().substr(m.offset, m.size), split.format, &*message_origin));
}

std::uint64_t file_offset(std::uint64_t offset) {
    return message_origin ? message_origin->file_offset(offset) : offset;
}

void add_fetch_external_options(CLI::App& cmd, fetch_external_flags& flags) {
    cmd.add_flag("--fetch-external", flags.enabled,
                 "first retrieve the message/external-body parts and use them as ordinary parts "
                 "(as mhtml fetch-external does; http, https and ftp only)");
    cmd.add_option(
        "--allow-local", flags.allow_local,
        "with --fetch-external: read local-file parts and file: URLs inside this folder");
}

std::string with_external_bodies(std::string_view command, std::string_view bytes,
                                 const parse_limits& limits, const fetch_external_flags& flags) {
    mime::parse_options po;
    po.limits = limits;
    const mime::document doc = mime::document::parse(std::string(bytes), po);
    external::retrieve_options ro;
    if (!flags.allow_local.empty()) ro.allow_local = flags.allow_local;
    ro.max_size = 256ull << 20;  // a view's part; fetch-external itself allows --max-size
    external::materialize_report report;
    std::string out = external::materialize(doc, ro, report);
    for (const auto& p : report.parts)
        if (!p.replaced)
            std::cerr << "mhtml " << command << ": external body in part "
                      << (p.path.empty() ? "." : p.path) << " kept as it is ("
                      << external::status_name(p.result.st) << ", " << p.result.reason
                      << "): " << printable(p.result.message, 600) << '\n';
    return out;
}

std::optional<opened_archive> open_archive(std::string_view command, const std::string& file,
                                           const parse_limits& limits,
                                           const archive::aggregate_options& options,
                                           const fetch_external_flags* fetch) {
    auto in = open_input(command, file);
    if (!in) return std::nullopt;
    mime::parse_options po;
    po.limits = limits;
    const bool fetching = fetch && fetch->enabled;
    // Other octets than the mailbox's: offsets are the rewritten message's own.
    if (fetching) message_origin.reset();
    mime::document doc =
        fetching
            ? mime::document::parse(with_external_bodies(command, in->bytes(), limits, *fetch), po)
            : mime::document::parse(std::move(*in), po);
    archive::aggregate_options ao = options;
    ao.max_diagnostics = limits.max_diagnostics;
    if (!ao.store) ao.store = selected_store();
    archive::aggregate agg = archive::aggregate::build(doc, ao);
    return opened_archive{std::move(doc), std::move(agg)};
}

/// Copies the spooled archive to standard output; false on a read or write failure.
bool copy_to_stdout(std::FILE* spool) {
    if (std::fflush(spool) != 0 || std::fseek(spool, 0, SEEK_SET) != 0) return false;
    std::vector<char> buf(1 << 20);
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), spool)) > 0)
        if (std::fwrite(buf.data(), 1, n, stdout) != n) return false;
    return !std::ferror(spool) && std::fflush(stdout) == 0;
}

void add_blink_style_imports_option(CLI::App& cmd,
                                    archive::aggregate_options::style_imports& mode) {
    using imports = archive::aggregate_options::style_imports;
    const std::map<std::string, imports> names{{"chromium", imports::chromium},
                                               {"live", imports::live_page}};
    cmd.add_option("--blink-style-imports", mode,
                   "a relative @import in a style sheet Blink made from a <style> element: "
                   "'chromium' (default) leaves it unresolved, as Chromium's view of the archive "
                   "does; 'live' resolves it against the page, as the live page did")
        ->transform(CLI::CheckedTransformer(names, CLI::ignore_case));
}

void add_limit_options(CLI::App& cmd, parse_limits& limits) {
    cmd.add_option("--max-depth", limits.max_depth,
                   "nesting of multiparts/messages that is parsed (default 100, at most 1000)")
        ->check(CLI::Range(std::size_t(1), parse_limits::hard_max_depth));
    cmd.add_option("--max-parts", limits.max_parts,
                   "entities parsed in one document (default 1000000)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--max-header-bytes", limits.max_header_block,
                   "octets of one header block that are interpreted (default 1 MiB)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--max-line-length", limits.max_line_length,
                   "header line length reported as too long (default 1 MiB)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--max-diagnostics", limits.max_diagnostics,
                   "diagnostics kept per document; the rest are counted in a last one "
                   "(default 10000)");
}

}  // namespace mhtml::cli

int main(int argc, char** argv) {
    using namespace mhtml::cli;
#ifdef MHTML_WITH_MIMALLOC
    if (const char* v = std::getenv("MHTML_HUGE_PAGES"); !v || std::strcmp(v, "0") != 0)
        enable_huge_pages();
#endif
    CLI::App app{"mhtml: read, check and convert MIME aggregate documents (.mhtml, .mht, .eml)"};
    app.set_version_flag("--version", "mhtml " + std::string(mhtml::version()));
    app.require_subcommand(1);
    app.footer(
        "Examples:\n"
        "  mhtml ls page.mhtml              list the parts of a saved page\n"
        "  mhtml ls --json --hash mail.eml  the same as JSON, with SHA-256 of each decoded leaf\n"
        "  cat page.mht | mhtml ls -        read standard input\n"
        "  mhtml url resolve thismessage:/ img/a.gif   resolve a reference as MHTML does\n"
        "  mhtml refs --base https://e.example/ page.html   every link of a page, resolved\n"
        "  mhtml refs saved.mhtml             every link of an archive and the part it names\n"
        "  mhtml cat saved.mhtml https://e.example/a.css   the part that URI names, decoded\n"
        "  mhtml check saved.mhtml            what the archive does against the MHTML rules\n"
        "  mhtml extract saved.mhtml -o dir   the page as a folder of files (dir/index.html)\n"
        "  mhtml inline saved.mhtml -o p.html the page as one self-contained HTML file\n"
        "  mhtml pack site/ -o site.mhtml     a local page and what it needs as one archive\n"
        "  mhtml repair bad.mht -o ok.mhtml   a damaged archive written as one Chromium shows\n"
        "  mhtml serve ~/archives             browse a folder of archives from a local server\n"
        "  mhtml fetch-external m.eml -o full.eml   retrieve the external bodies into the message\n"
        "  mhtml batch crawl/ --check -j 8 > out.jsonl   a job over many archives, every core\n"
        "  mhtml index inbox.mbox --db mail.db      index messages; --store mail.db then\n"
        "                                   resolves mid: URLs across them (refs, cat, check, "
        "...)\n"
        "\n"
        "Run 'mhtml COMMAND --help' for the options of a command.");
    runner ls = add_ls_command(app);
    runner url = add_url_command(app);
    runner refs = add_refs_command(app);
    runner cat = add_cat_command(app);
    runner check = add_check_command(app);
    runner extract = add_extract_command(app);
    runner inline_ = add_inline_command(app);
    runner pack = add_pack_command(app);
    runner repair = add_repair_command(app);
    runner serve = add_serve_command(app);
    runner fetch_external = add_fetch_external_command(app);
    runner index = add_index_command(app);
    runner batch = add_batch_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : exit_usage;
    }
    try {
        for (CLI::App* sub : app.get_subcommands()) {
            if (sub->get_name() == "ls") return ls();
            if (sub->get_name() == "url") return url();
            if (sub->get_name() == "refs") return refs();
            if (sub->get_name() == "cat") return cat();
            if (sub->get_name() == "check") return check();
            if (sub->get_name() == "extract") return extract();
            if (sub->get_name() == "inline") return inline_();
            if (sub->get_name() == "pack") return pack();
            if (sub->get_name() == "repair") return repair();
            if (sub->get_name() == "serve") return serve();
            if (sub->get_name() == "fetch-external") return fetch_external();
            if (sub->get_name() == "index") return index();
            if (sub->get_name() == "batch") return batch();
        }
    } catch (const std::exception& e) {
        std::cerr << "mhtml: " << e.what() << '\n';
        return exit_usage;
    }
    return exit_usage;
}
