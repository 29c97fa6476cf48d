// `cudnnup install ARCHIVE|VERSION`: into the store (default) or merged into a CUDA toolkit
// (--into), all or nothing. See docs/commands/install.md.
#include <cctype>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/exit_codes.h"
#include "app/cli/help_words.h"
#include "base/strings.h"

#include "app/commands/without_install.h"
#if CUDNNUP_HAVE_INSTALL
#include <chrono>
#include <ctime>
#include <random>

#include "app/commands/install_locked.h"
#include "app/commands/install_services.h"
#include "app/commands/known_table.h"
#include "app/commands/recovery.h"
#include "app/commands/store_access.h"
#include "app/render/archive_render.h"
#include "app/commands/doctor_runner.h"
#include "discover/discovery.h"
#include "install/cuda_choice.h"
#include "install/permission_hint.h"
#include "base/paths.h"
#include "install/install_pipeline.h"
#include "install/transaction.h"
#include "platform/file_lock.h"
#include "platform/system.h"
#include "shell/fix_render.h"
#include "base/json_text.h"
#endif

namespace cudnnup {


struct InstallArgs {
  std::string source;
  int cuda = 0;
  std::string into;
  std::string mirror;
  bool dry_run = false;
  bool force_cuda_mismatch = false;
  bool move_aside_old = false;
  bool cross_arch = false;
  bool no_wait = false;
  std::string sha256;
  bool locked = false;    // --locked: what cudnn.lock names (app/commands/install_locked.h)
  std::string lock_file;  // --lock FILE
};

#if CUDNNUP_HAVE_INSTALL

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string new_transaction_id() {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::random_device rd;
  return make_transaction_id(ns, std::to_string(rd() % 100000));
}

std::string absolute_path(const AppContext& ctx, const std::string& p) {
  return paths::is_absolute(p) ? paths::normalize(p) : paths::normalize(paths::join(ctx.env.cwd, p));
}

std::string host_platform_key(const AppContext& ctx) {
  return archive_platform_key_for(host_machine(), ctx.env.windows());
}

// Each statement of the archive's sha256, with where it came from (a mirror's manifest
// never overrides NVIDIA's published hash; core/install/archive_source.h decides).
// An archive under a name that is not NVIDIA's was checked against the row its top folder names
// (install_pipeline.h), which then is the claim used.
nlohmann::json hashes_json(const ResolvedSource& source, const std::optional<KnownArchive>& top_folder_row = std::nullopt) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : source.hashes) {
    out.push_back({{"source", h.source}, {"where", h.where}, {"sha256", h.sha256}, {"used", h.used && !top_folder_row}});
  }
  if (top_folder_row) {
    out.push_back({{"source", top_folder_row->refreshed ? "refreshed-known-archives" : "known-archives"},
                   {"where", top_folder_row->source}, {"sha256", top_folder_row->sha256}, {"used", true}});
  }
  return out;
}

// How a version install chose its release and CUDA build, when it had to choose.
struct ChoiceNotes {
  std::string cuda;       // "--cuda 13 assumed from ..."; "" when --cuda was given
  std::string release;    // "'9' is cuDNN 9.27.0: ..."; "" for a full release or a file
  std::string requested;  // the argument as typed
  std::string resolved;   // the release it resolved to; "" for a file
  int cuda_major = 0;     // 0 for a file
};

// "request": what was asked, what it became, and why; null for a file.
nlohmann::ordered_json request_json(const ChoiceNotes& n) {
  if (n.resolved.empty()) return nullptr;
  return {{"requested", n.requested}, {"release", n.resolved}, {"release_note", n.release.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(n.release)},
          {"cuda_major", n.cuda_major}, {"cuda_note", n.cuda.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(n.cuda)}};
}

void print_would_download(const AppContext& ctx, const ResolvedSource& source, const ChoiceNotes& notes) {
  if (ctx.options.json) {
    nlohmann::ordered_json out = {{"schema", "cudnnup.install/1"}, {"kind", "download"}, {"dry_run", true}, {"would_download", source.url},
                          {"manifest", source.manifest_url}, {"size", source.expected_size}, {"sha256", source.expected_sha256},
                          {"sha256_from", source.expected_from}, {"hashes", hashes_json(source)}, {"request", request_json(notes)},
                          {"exit_code", 0}};
    std::cout << dump_json(out, 2) << std::endl;
    return;
  }
  std::cout << "Would download " << source.url << " (" << human_bytes(source.expected_size) << ", sha256 "
            << source.expected_sha256 << " from " << source.expected_from << ")\nfrom the manifest " << source.manifest_url
            << "; run without --dry-run to download it and see the full plan.\n";
}

// The command that undoes a merge (uninstall --into the toolkit); empty for a store install.
std::vector<std::string> undo_argv(const AppContext& ctx, const InstallOutcome& r) {
  if (r.plan.mode == "store") return {};
  return {"cudnnup", "uninstall", "--into", paths::to_native(r.plan.target, ctx.env.windows())};
}

void print_install_json(const AppContext& ctx, const InstallOptions& o, const InstallOutcome& r, const ResolvedSource& source,
                        const std::vector<std::string>& recovered, const ChoiceNotes& notes) {
  nlohmann::ordered_json out;
  out["schema"] = "cudnnup.install/1";
  out["kind"] = "install";
  out["dry_run"] = r.dry_run;
  out["mode"] = r.plan.mode;
  out["id"] = r.plan.id;
  out["target"] = r.plan.target;
  out["already_installed"] = r.already_installed;
  out["archive"] = archive_identity_json(r.name, o.archive, r.scan.archive_bytes, r.archive_sha256);
  out["source"] = {{"url", source.url}, {"manifest", source.manifest_url}, {"downloaded", source.downloaded},
                   {"from_cache", source.from_cache}, {"checked_against_known_hash", !r.sha256_checked_against.empty()},
                   {"sha256_from", r.sha256_checked_against}, {"hashes", hashes_json(source, r.top_folder_row)}};
  out["request"] = request_json(notes);
  if (!r.already_installed) out["contents"] = contents_json(r.scan);
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.plan.steps) steps.push_back({{"action", s.action}, {"path", s.path}, {"detail", s.detail}});
  out["steps"] = steps;
  nlohmann::json left = nlohmann::json::array();
  for (const auto& l : r.plan.leftovers) {
    left.push_back({{"path", l.path}, {"major", l.major}, {"other_major", l.other_major}, {"moved_aside", o.move_aside_old}});
  }
  out["leftovers"] = left;
  out["warnings"] = r.warnings;
  out["recovered"] = recovered;
  auto undo = undo_argv(ctx, r);
  out["undo_command"] = undo.empty() || r.dry_run ? nlohmann::json(nullptr) : nlohmann::json(undo);
  out["exit_code"] = kExitOk;
  std::cout << dump_json(out, 2) << std::endl;
}

// "sha256 4f2c...: NVIDIA's published sha256 (URL); the mirror's manifest (URL) agrees".
std::string hash_sentence(const InstallOutcome& r, const ResolvedSource& source) {
  if (r.sha256_checked_against.empty()) return "no published sha256 for this archive (give one with --sha256 to check it)";
  std::string out = "sha256 " + r.archive_sha256.substr(0, 16) + "… matches " + r.sha256_checked_against;
  for (const auto& h : source.hashes) {
    if (!h.used || r.top_folder_row) out += "; " + describe_hash_claim(h) + " agrees";
  }
  return out;
}

void print_install_text(const AppContext& ctx, const InstallOptions& o, const InstallOutcome& r, const ResolvedSource& source) {
  Style st{ctx.color};
  for (const auto& w : r.warnings) std::cerr << "cudnnup: warning: " << w << std::endl;
  if (r.already_installed) {
    std::cout << st.ok() << " cuDNN " << r.plan.id << " is already installed at " << r.plan.target << "\n";
    return;
  }
  std::string where = r.plan.mode == "store" ? "the store" : "the toolkit " + r.plan.target;
  if (r.dry_run) {
    std::cout << st.bold("Plan") << ": install cuDNN " << r.plan.manifest.cudnn_version << " (CUDA " << r.plan.manifest.cuda_variant
              << ") into " << where << "\n";
    for (const auto& s : r.plan.steps) std::cout << "  " << s.action << "  " << s.path << (s.detail.empty() ? "" : "  (" + s.detail + ")") << "\n";
    std::cout << "Nothing was changed (--dry-run).\n";
    return;
  }
  int libs = 0;
  for (const auto& l : r.scan.report.libraries) libs += !l.is_link;
  std::cout << st.ok() << " checked " << r.scan.items.size() << " entries, " << libs << " libraries (" << r.scan.report.machine << "), "
            << human_bytes(r.scan.unpacked_bytes) << "; " << hash_sentence(r, source) << "\n";
  for (const auto& l : r.plan.leftovers) {
    if (o.move_aside_old) std::cout << st.ok() << " moved aside " << l.path << "\n";
  }
  std::cout << st.ok() << " installed cuDNN " << r.plan.manifest.cudnn_version << " (CUDA " << r.plan.manifest.cuda_variant << ") into "
            << r.plan.target << "\n";
  if (r.plan.mode == "store") std::cout << "Next: " << render_command_or_sentence({"cudnnup", "use", r.plan.id}, fix_shell(ctx)) << "\n";
  else std::cout << "Undo with: " << render_command_or_sentence(undo_argv(ctx, r), fix_shell(ctx)) << "\n";
}

InstallOptions install_options(const AppContext& ctx, const InstallArgs& args, const ResolvedSource& source) {
  InstallOptions o;
  if (!args.into.empty()) o.into = absolute_path(ctx, args.into);
  if (args.cuda) o.cuda_major = args.cuda;
  o.archive = absolute_path(ctx, source.archive_path);
  o.dry_run = args.dry_run;
  o.force_cuda_mismatch = args.force_cuda_mismatch;
  o.move_aside_old = args.move_aside_old;
  o.cross_arch = args.cross_arch;
  o.windows = ctx.env.windows();
  o.host_machine = std::string(host_machine().name);
  o.expected_sha256 = source.expected_sha256;
  if (!source.expected_from.empty()) o.expected_sha256_from = source.expected_from;
  o.expected_size = source.expected_size;
  o.txid = new_transaction_id();
  o.now_iso = now_iso8601();
  o.cudnnup_version = CUDNNUP_VERSION;
  return o;
}

// Where the archive comes from, then the pipeline, with the progress line for both (it is gone
// again when this returns, before anything else is printed). nullopt: a dry run that would
// download.
Result<std::optional<InstallOutcome>> resolve_and_install(AppContext& ctx, const StoreLayout& store, const SourceRequest& req,
                                                          const InstallArgs& args, ResolvedSource* source, InstallOptions* o) {
  auto progress = progress_for(ctx);
  InstallServices services = install_services(progress ? progress->get() : nullptr);
  auto known = known_archives_for(ctx);
  if (!known) return known.error();
  auto resolved = resolve_source(*ctx.fs, store, req, *known, http_client(services.progress), services);
  if (!resolved) return resolved.error();
  *source = std::move(*resolved);
  if (source->archive_path.empty()) return std::optional<InstallOutcome>();
  *o = install_options(ctx, args, *source);
  o->published = std::move(*known);
  auto r = run_install(*ctx.fs, *ctx.fs, store, *o, services);
  if (!r) return r.error();
  return std::optional<InstallOutcome>(std::move(*r));
}

// The CUDA major of a version install without --cuda: the --into toolkit's, else the one this
// machine's environment points to (install/cuda_choice.h). nullopt: nothing tells.
Result<std::optional<CudaChoice>> assumed_cuda_major(const AppContext& ctx, const InstallArgs& args) {
  if (!args.into.empty()) {
    std::string into = absolute_path(ctx, args.into);
    ToolkitTarget t = inspect_toolkit(*ctx.fs, into, ctx.env.windows());
    if (!t.cuda_version.known()) return std::optional<CudaChoice>();
    return std::optional<CudaChoice>(CudaChoice{t.cuda_version.major(), "the CUDA " + t.cuda_version.truncated(2).str() + " toolkit " + into});
  }
  auto rules = load_rules(ctx);
  if (!rules) return rules.error();
  std::vector<Toolkit> toolkits = find_toolkits(*ctx.fs, ctx.env, nullptr);
  std::string driver = ctx.env.windows() ? std::string() : kernel_module_version(*ctx.fs);
  return default_cuda_major(toolkits, driver, ctx.env.windows(), *rules);
}

int run_install_command(AppContext& ctx, const InstallArgs& args) {
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  LockWait wait = args.no_wait ? LockWait::kNoWait : LockWait::kWait;
  // The store's lock, then (merge) the toolkit's, which every store shares (app/commands/locks.h).
  std::optional<LockedStore> locked;
  std::optional<FileLock> toolkit_lock;
  std::vector<std::string> recovered;
  if (!args.dry_run) {
    auto l = lock_store(ctx, wait);
    if (!l) return report_error(ctx, l.error());
    locked.emplace(std::move(*l));
    recovered = locked->repairs;
    for (const auto& line : recovered) std::cerr << "cudnnup: " << line << std::endl;
    std::string into = args.into.empty() ? std::string() : absolute_path(ctx, args.into);
    if (!into.empty() && ctx.fs->is_dir(into)) {
      auto t = lock_toolkit(ctx, ctx.fs->canonical(into).value_or(into), wait);
      if (!t) {
        InstallOptions hint;  // what with_permission_hint names: the command as the user typed it
        hint.archive = args.source;
        hint.into = into;
        hint.windows = ctx.env.windows();
        return report_error(ctx, with_permission_hint(t.error(), into, hint));
      }
      toolkit_lock.emplace(std::move(*t));
    }
  }

  SourceRequest req;
  req.arg = args.source;
  if (args.cuda) req.cuda_major = args.cuda;
  std::optional<LockedRequest> lock;
  if (args.locked) {
    if (!args.into.empty() || !args.sha256.empty() || args.cuda) {
      return report_error(ctx, make_error(ErrorCode::kUsage, "--locked takes the version, CUDA major and sha256 from the lock, "
                                                             "into the store: give no --into, --sha256 or --cuda"));
    }
    auto r = locked_request(ctx, args.lock_file, host_platform_key(ctx));
    if (!r) return report_error(ctx, r.error());
    lock.emplace(std::move(*r));
    req.arg = lock->release;
    req.cuda_major = lock->lock.cuda_major;
  }
  std::string cuda_note;
  if (!req.cuda_major && looks_like_version(args.source) && !ctx.fs->is_file(args.source)) {
    auto choice = assumed_cuda_major(ctx, args);
    if (!choice) return report_error(ctx, choice.error());
    if (*choice) {
      req.cuda_major = (*choice)->major;
      cuda_note = "--cuda " + std::to_string((*choice)->major) + " assumed from " + (*choice)->why + "; pass --cuda N for another build";
      // Said even with -q: it is a choice made for the user, not progress.
      if (!ctx.options.json) std::cerr << "cudnnup: " << cuda_note << std::endl;
    }
  }
  req.mirror = !args.mirror.empty() ? args.mirror : ctx.env.get("CUDNNUP_MIRROR").value_or("");
  req.platform_key = host_platform_key(ctx);
  req.sha256 = lock ? lock->lock.archive_sha256 : ascii_lower(args.sha256);
  req.dry_run = args.dry_run;

  ResolvedSource source;
  InstallOptions o;
  auto result = resolve_and_install(ctx, store, req, args, &source, &o);
  if (!result) {
    std::vector<std::string> notes;
    if (!cuda_note.empty()) notes.push_back(cuda_note);
    return report_error(ctx, result.error(), exit_code_for(result.error()), {}, notes);
  }
  ChoiceNotes notes{cuda_note, source.release_note, args.source, source.release, req.cuda_major.value_or(0)};
  if (!ctx.options.json && !ctx.options.quiet && !notes.release.empty()) std::cerr << "cudnnup: " << notes.release << std::endl;
  if (!*result) {  // a dry run of a download: nothing to install yet
    print_would_download(ctx, source, notes);
    return kExitOk;
  }
  std::string selected;
  if (lock && locked && !args.dry_run) {
    auto finished = finish_locked_install(ctx, *locked, *lock, (*result)->plan.id);
    if (!finished) return report_error(ctx, finished.error());
    selected = *finished;
  }
  if (ctx.options.json) print_install_json(ctx, o, **result, source, recovered, notes);
  else print_install_text(ctx, o, **result, source);
  if (!selected.empty() && !ctx.options.json) std::cout << "Every file is as " << lock->lock_path << " names it; " << selected << "\n";
  return kExitOk;
}

#endif

void add_install_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<InstallArgs>();
  auto* cmd = app.add_subcommand("install", "Install cuDNN from an official archive or by version, all or nothing");
  auto* source = cmd->add_option("archive_or_version", args->source,
                                 "An archive (" + help_words().archive_kinds + "), or a release: 9.1.0 exactly, or 9, 9.19 or latest for the newest match (fetched through NVIDIA's redistrib manifests)");
  auto* locked = cmd->add_flag("--locked", args->locked,
                               "Install exactly what cudnn.lock names (the nearest, or --lock FILE) from the mirror, sha256 checked, and select it");
  cmd->add_option("--lock", args->lock_file, "With --locked: this lock instead of the nearest cudnn.lock")->type_name("FILE")->needs(locked);
  source->excludes(locked);
  locked->excludes(source);
  cmd->add_option("--cuda", args->cuda, "The CUDA major the cuDNN build must be for (12, 13, ...); default: the toolkit's (or driver's) this machine points to, said on stderr")
      ->check(CLI::Range(1, 999));
  cmd->add_option("--into", args->into, "Merge into this CUDA toolkit (Linux: include, lib64; Windows: bin, include, lib\\x64) instead of the store; undo with uninstall --into");
  cmd->add_option("--mirror", args->mirror, "Where redistrib manifests and archives live: https/http URL or a directory (default: NVIDIA; env CUDNNUP_MIRROR)");
  cmd->add_flag("--dry-run", args->dry_run, "Check the archive and print every file and step; change nothing");
  cmd->add_flag("--force-cuda-mismatch", args->force_cuda_mismatch, "Merge even when the toolkit's CUDA major differs from the archive's");
  cmd->add_flag("--move-aside-old", args->move_aside_old, "Move cuDNN files of another version out of the toolkit (restored by uninstall)");
  cmd->add_flag("--cross-arch", args->cross_arch,
                "Install libraries built for another CPU than this machine's (or the toolkit's), e.g. an sbsa archive prepared on x86_64");
  cmd->add_option("--sha256", args->sha256, "The archive's published sha256 (64 hex digits): the install stops if the file differs")
      ->check([](const std::string& v) {
        return ascii_lower(v).size() == 64 && ascii_lower(v).find_first_not_of("0123456789abcdef") == std::string::npos
                   ? std::string()
                   : std::string("--sha256 needs 64 hexadecimal digits");
      });
  cmd->add_flag("--no-wait", args->no_wait, "Fail at once (exit 4) when another cudnnup holds the store lock");
  const HelpWords& words = help_words();
  cmd->footer(
      "Store mode (default) unpacks into " + words.store_versions + " (the store: " + words.store + ") — " +
      words.no_privileges + ";\n"
      "select it with `cudnnup use`. Merge mode (--into) is the classic copy into a toolkit, with every\n"
      "replaced file backed up and a manifest so `cudnnup uninstall --into DIR` restores it exactly.\n"
      "Every entry is checked before anything is written; a crash at any point is repaired by the next run.\n\n"
      "A partial version (9, 9.19, latest) is the newest release the mirror lists (its index page, or the\n"
      "files of a mirror directory) that has an archive for this platform and CUDA major; when the list\n"
      "cannot be read, cudnnup's table of NVIDIA archives decides. Without --cuda, the CUDA major is the --into\n"
      "toolkit's, else that of the first toolkit found (" + words.toolkit_search + "),\n"
      "else the highest the NVIDIA driver runs; both choices are printed on stderr. `cudnnup list --available`\n"
      "shows what the mirror offers.\n\n"
      "--locked installs what the project's cudnn.lock names (docs/commands/lock.md): its release and CUDA\n"
      "major from the mirror, refused unless the archive has the lock's sha256 and every installed file the\n"
      "lock's; then the project selects it (the .cudnn-version beside the lock).\n\n"
      "Exit codes: 0 installed (or already there), 2 refused or failed (nothing changed), 4 another cudnnup\n"
      "holds the lock (--no-wait) or the toolkit already has a cudnnup install.\n"
      "Examples:\n"
      "  cudnnup install " + words.archive_example + "\n"
      "  cudnnup install 9 --cuda 13\n"
      "  cudnnup install 9.1.0 --cuda 12\n"
      "  cudnnup install latest --dry-run\n"
      "  cudnnup install --locked --mirror https://mirror.example/cudnn/\n"
      "  " + words.merge_example);
  cmd->callback([&action, args] {
    if (args->source.empty() && !args->locked) throw CLI::RequiredError("archive_or_version (or --locked)");
#if CUDNNUP_HAVE_INSTALL
    action = [args](AppContext& ctx) { return run_install_command(ctx, *args); };
#else
    action = [](AppContext& ctx) {
      return report_error(ctx, make_error(ErrorCode::kUnsupported,
                                          std::string("install is not available in this build: ") + kBuiltWithoutInstall));
    };
#endif
  });
}

}  // namespace cudnnup
