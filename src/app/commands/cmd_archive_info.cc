// `cudnnup archive-info FILE`: what a cuDNN archive is, whether it is whole and genuine, and
// whether it suits this machine. Reads the archive once, streaming; writes nothing.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/commands/known_table.h"

#include "app/commands/without_install.h"
#if CUDNNUP_HAVE_INSTALL
#include "app/commands/doctor_runner.h"
#include "app/commands/install_services.h"
#include "app/commands/known_table.h"
#include "app/render/archive_render.h"
#include "base/paths.h"
#include "base/json_text.h"
#endif

namespace cudnnup {
namespace {

struct ArchiveInfoArgs {
  std::string file;
  std::string cuda_dir;
  bool no_machine = false;
  bool update_known = false;
  UpdateKnownOptions update;
};

#if CUDNNUP_HAVE_INSTALL

// A scan that stopped gives an error value, worded to follow "cudnnup: error: "; as a line of its
// own it needs a subject.
std::string unread_sentence(const Error& e) {
  std::string m = e.message;
  if (!m.empty() && m.back() == '.') m.pop_back();
  return "Reading the archive stopped: " + m + ".";
}

const char* status_mark(const Style& st, const std::string& status) {
  static std::string s;
  s = status == "ok" ? st.ok() : status == "error" ? st.bad() : status == "warning" ? st.warn() : st.info();
  return s.c_str();
}

int run_archive_info(AppContext& ctx, const ArchiveInfoArgs& args) {
  auto info = ctx.fs->stat(args.file);
  if (!info) return report_error(ctx, make_error(ErrorCode::kNotFound, "cannot read " + args.file + ": no such file", args.file));
  if (info->type != FileType::kRegular) {
    return report_error(ctx, make_error(ErrorCode::kUsage, args.file + " is not a regular file: give the archive file", args.file));
  }
  std::optional<ArchiveName> name;
  auto parsed = parse_archive_name(args.file);
  if (parsed) name = *parsed;
  else if (parsed.error().code != ErrorCode::kUsage) return report_error(ctx, parsed.error());
  ScanOptions options;
  options.name = name;
  options.hash_archive = true;
  Result<ScanResult> scan = make_error(ErrorCode::kInternal, "not read");
  {
    auto progress = progress_for(ctx);
    scan = scan_archive(*ctx.fs, args.file, options, install_services(progress ? progress->get() : nullptr));
  }
  // A refused archive stops the scan early; hash it on its own then.
  auto sha = scan ? Result<std::string>(scan->archive_sha256) : hash_file(*ctx.fs, args.file, sha256_hasher());
  if (!sha) return report_error(ctx, sha.error());
  std::optional<ArchiveName> identity = name;
  if (!identity && scan) {
    if (auto top = parse_archive_name(scan->top_dir + ".tar.xz")) identity = *top;
  }
  auto table = known_archives_for(ctx);
  if (!table) return report_error(ctx, table.error());
  KnownCheck known = check_known_archive(*table, identity ? identity->canonical_name : std::string(paths::basename(args.file)),
                                         *sha, info->size);
  std::optional<Report> report;
  if (!args.no_machine && scan) {
    auto r = collect_report(ctx);
    if (r) report = std::move(*r);
  }
  std::vector<SuitabilityCheck> suits;
  if (identity && scan) {
    suits = check_suitability(*identity, scan->report, ctx.env.windows(), report ? &*report : nullptr,
                              args.cuda_dir.empty() ? std::string() : paths::normalize(args.cuda_dir));
  }
  bool archive_ok = scan && scan->report.ok() && known.match != KnownMatch::kMismatch;
  bool suits_ok = true;
  for (const auto& s : suits) suits_ok &= s.status != "error";
  int code = archive_ok && suits_ok ? kExitOk : kExitProblems;

  if (ctx.options.json) {
    nlohmann::ordered_json out;
    out["schema"] = "cudnnup.archive-info/1";
    out["kind"] = "archive";
    out["archive"] = archive_identity_json(name, args.file, info->size, *sha);
    out["known"] = known_json(known);
    if (scan) {
      out["contents"] = contents_json(*scan);
    } else {
      out["contents"] = {{"ok", false}, {"errors", {unread_sentence(scan.error())}}};
    }
    if (identity && !name) out["identified_from"] = "top_dir";
    out["suitability"] = suitability_json(suits);
    out["installable"] = archive_ok;
    out["suits_this_machine"] = archive_ok && suits_ok;
    out["exit_code"] = code;
    std::cout << dump_json(out, 2) << std::endl;
    return code;
  }
  Style st{ctx.color};
  std::cout << st.bold(std::string(paths::basename(args.file))) << "\n";
  if (identity) {
    std::cout << "  " << (name ? "The file name says" : "The top folder says") << " cuDNN " << identity->version.str() << " for CUDA "
              << identity->cuda_variant << " on " << identity->platform_key()
              << (identity->era == ArchiveEra::kLegacy ? " (a legacy archive)" : "");
    if (!name) std::cout << "; the file name is not NVIDIA's";
    else if (!name->canonical) std::cout << "; NVIDIA's name for it is " << name->canonical_name;
    std::cout << ".\n";
  } else {
    std::cout << "  " << st.warn() << " The file name is not an official cuDNN archive name.\n";
  }
  std::cout << "  The file is " << human_bytes(info->size) << "; its sha256 is " << *sha << ".\n";
  std::cout << "  " << (known.match == KnownMatch::kMatches ? st.ok() : known.match == KnownMatch::kMismatch ? st.bad() : st.info())
            << " " << known.message << "\n";
  if (!scan) {
    std::cout << "  " << st.bad() << " " << unread_sentence(scan.error()) << "\n";
  } else {
    const ContentReport& r = scan->report;
    int libs = 0;
    for (const auto& l : r.libraries) libs += !l.is_link;
    std::cout << "  " << (r.ok() ? st.ok() : st.bad()) << " The archive holds " << scan->items.size() << " entries under "
              << scan->top_dir << "/ (" << human_bytes(scan->unpacked_bytes) << " unpacked), "
              << (r.header_version.known() ? "its header says cuDNN " + r.header_version.str() : std::string("it has no cuDNN version header"))
              << ", and it has " << libs << " library " << (libs == 1 ? "file" : "files") << " ("
              << (r.platform == ArchivePlatform::kWindows ? "PE" : "ELF") << (r.machine.empty() ? "" : " " + r.machine) << ").\n";
    for (const auto& e : r.errors) std::cout << "  " << st.bad() << " " << e << "\n";
    for (const auto& w : r.warnings) std::cout << "  " << st.warn() << " " << w << "\n";
  }
  if (!suits.empty()) {
    std::cout << st.bold("This machine") << (report ? "" : " (not inspected: --no-machine)") << "\n";
    for (const auto& s : suits) std::cout << "  " << status_mark(st, s.status) << " " << s.message << "\n";
  }
  if (archive_ok) {
    std::cout << "Install: cudnnup install " << args.file << (suits_ok ? "" : "   (see the problems above first)") << "\n";
  }
  return code;
}

#endif

}  // namespace

void add_archive_info_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<ArchiveInfoArgs>();
  auto* cmd = app.add_subcommand("archive-info", "Say what a cuDNN archive is, whether it is whole and genuine, and whether it suits this machine");
  cmd->add_option("file", args->file, "A cuDNN archive: .tar.xz, .tgz, .tar or .zip")->type_name("FILE");
  cmd->add_flag("--update-known", args->update_known,
                "Instead: read every manifest the mirror lists and keep the archives cudnnup's built-in table lacks (in the store)");
  cmd->add_option("--mirror", args->update.mirror, "With --update-known: https/http URL or a directory (default: NVIDIA; env CUDNNUP_MIRROR)");
  cmd->add_flag("--dry-run", args->update.dry_run, "With --update-known: say what would be added, write nothing");
  cmd->add_option("--cuda-dir", args->cuda_dir, "Judge the CUDA match against this toolkit (default: every toolkit found)")
      ->type_name("DIR");
  cmd->add_flag("--no-machine", args->no_machine, "Do not inspect this machine (no toolkit/driver/GPU checks)");
  cmd->footer(
      "Reads every entry once (streaming) and refuses what install would refuse: paths outside the\n"
      "archive's folder, links that escape, hard links, device files, duplicates, truncation, bombs.\n"
      "Checks the header version, the library set for the major version and each library's ELF/PE\n"
      "header, and the sha256 against NVIDIA's published hashes (data/known_archives.json).\n\n"
      "--update-known reads the redistrib manifest of every release the mirror lists and writes the\n"
      "archives the built-in table lacks (releases newer than this build) to known_archives.json in the\n"
      "store, which install and archive-info then check against too. The built-in rows always win: a\n"
      "mirror whose hash differs from one of them is reported (exit 1) and not written.\n\n"
      "Exit codes: 0 sound and suitable (or refreshed), 1 damaged, not genuine or unsuitable (or a mirror\n"
      "disagreed with the built-in table), 2 cannot read it (or the mirror).\n"
      "Examples:\n  cudnnup archive-info ~/Downloads/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz\n"
      "  cudnnup archive-info --update-known --dry-run");
  cmd->callback([&action, args, cmd] {
#if CUDNNUP_HAVE_INSTALL
    action = [args, cmd](AppContext& ctx) {
      if (args->update_known) {
        if (!args->file.empty()) return report_error(ctx, make_error(ErrorCode::kUsage, "--update-known takes no FILE"));
        return run_update_known(ctx, args->update);
      }
      if (cmd->count("--mirror") || cmd->count("--dry-run")) {
        return report_error(ctx, make_error(ErrorCode::kUsage, "--mirror and --dry-run go with --update-known"));
      }
      if (args->file.empty()) {
        return report_error(ctx, make_error(ErrorCode::kUsage, "archive-info needs a FILE (`cudnnup archive-info FILE`), or --update-known"));
      }
      return run_archive_info(ctx, *args);
    };
#else
    action = [](AppContext& ctx) {
      return report_error(ctx, make_error(ErrorCode::kUnsupported,
                                          std::string("archive-info is not available in this build: ") + kBuiltWithoutInstall));
    };
#endif
  });
}

}  // namespace cudnnup
