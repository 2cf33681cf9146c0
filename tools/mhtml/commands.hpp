#pragma once
// Each subcommand lives in cmd_<verb>.cpp and registers itself on the application with
// add_<verb>_command, which returns the function that runs it after parsing.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "mhtml/archive/aggregate.hpp"
#include "mhtml/input.hpp"
#include "mhtml/limits.hpp"
#include "mhtml/mime/document.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace mhtml::cli {

/// Exit codes shared by every subcommand.
enum exit_code : int { exit_ok = 0, exit_input_errors = 1, exit_usage = 2 };

using runner = std::function<int()>;

runner add_ls_command(CLI::App& app);
runner add_url_command(CLI::App& app);
runner add_refs_command(CLI::App& app);
runner add_cat_command(CLI::App& app);
runner add_check_command(CLI::App& app);
runner add_extract_command(CLI::App& app);
runner add_inline_command(CLI::App& app);
runner add_pack_command(CLI::App& app);
runner add_repair_command(CLI::App& app);
runner add_serve_command(CLI::App& app);
runner add_fetch_external_command(CLI::App& app);
runner add_index_command(CLI::App& app);
runner add_batch_command(CLI::App& app);

/// Opens FILE (or standard input for "-"); on failure prints "mhtml COMMAND: cannot read
/// ..." and returns nullopt (the caller exits with exit_usage).
std::optional<input_buffer> open_input(std::string_view command, const std::string& file);

/// --message N|MESSAGE-ID (ls, refs, cat, check, extract, inline): the input is an mbox
/// mailbox (or a Maildir folder) and open_input gives that one message of it, unquoted
/// (store/mbox.hpp, store/maildir.hpp): a view of the mailbox, or unquoted when it has quoted
/// lines. Offsets the command reports in the input are then given in the mailbox file
/// (file_offset); a note on standard error says where the message starts.
void add_message_option(CLI::App& cmd);

/// A command that runs for long (`serve`): freed memory goes back to the system after a while,
/// instead of being kept for reuse as in the tool's short runs (main.cpp, enable_huge_pages).
void memory_for_long_runs();
/// An offset in the input as read, as an offset in the file named: with --message on an mbox,
/// in the mailbox (quoting undone counted back in); otherwise the offset itself.
std::uint64_t file_offset(std::uint64_t offset);
/// Whether --message was given.
bool message_selected();
/// --store DB (refs, cat, check, extract, inline): mid: URLs that name no message of the
/// input are looked up in this index (mhtml index; store::indexed_store).
void add_store_option(CLI::App& cmd);
/// The store --store names, opened on first use (throws store::store_error), or nullptr.
const archive::message_store* selected_store();

/// A message read and its aggregate built over it (the aggregate follows the document
/// wherever the pair is moved).
struct opened_archive {
    mime::document doc;
    archive::aggregate agg;
};

/// open_input, parse with `limits`, build the aggregate with `options`; nullopt after
/// open_input has said why.
/// --fetch-external and --allow-local (extract, inline, serve): the external bodies retrieved
/// and written in before anything else is done (external::materialize_to).
struct fetch_external_flags {
    bool enabled = false;
    std::string allow_local;
};
void add_fetch_external_options(CLI::App& cmd, fetch_external_flags& flags);
/// `bytes` with its external bodies materialized; each part left as it was is named on
/// standard error (prefixed with `command`).
std::string with_external_bodies(std::string_view command, std::string_view bytes,
                                 const parse_limits& limits, const fetch_external_flags& flags);

std::optional<opened_archive> open_archive(std::string_view command, const std::string& file,
                                           const parse_limits& limits,
                                           const archive::aggregate_options& options,
                                           const fetch_external_flags* fetch = nullptr);

/// Copies a spooled output (a temporary file) to standard output; false on a read or write
/// failure.
bool copy_to_stdout(std::FILE* spool);

/// Adds --blink-style-imports chromium|live (aggregate_options::blink_style_imports).
void add_blink_style_imports_option(CLI::App& cmd, archive::aggregate_options::style_imports& mode);

/// Adds --max-depth, --max-parts, --max-header-bytes, --max-line-length.
void add_limit_options(CLI::App& cmd, parse_limits& limits);

}  // namespace mhtml::cli
