#include "app/commands/recovery.h"

#include <iostream>

#include "install/transaction.h"
#include "store/store_recovery.h"
#include "store/toolkit_link.h"

namespace cudnnup {

Result<RecoveryReport> recover_with_lock_held(AppContext& ctx, const StoreLayout& store, StoreState& state) {
  RecoveryReport report;
  TransactionRunner runner(*ctx.fs, store);
  // A merge's repair changes a toolkit, which another store may be changing right now.
  TransactionRunner::RepairWrapper around = [&](const Journal& j, const std::function<Status()>& repair) -> Status {
    if (j.root == store.root) return repair();
    auto lock = lock_toolkit(ctx, j.root, LockWait::kNoWait);
    if (!lock) return lock.error();  // kConflict: busy, left for the next run
    return repair();
  };
  auto journals = runner.recover(&report.refused, around);
  if (!journals) return journals.error();
  report.repaired = *journals;
  if (!state.untrusted.empty() && store_needs_repair(*ctx.fs, store, state)) {
    report.refused.push_back(check_state_trusted(state, store).error());
    return report;
  }
  auto own = recover_store(*ctx.fs, store, state);
  if (!own) return own.error();
  report.repaired.insert(report.repaired.end(), own->begin(), own->end());
  std::vector<std::string> pending;
  for (const auto& l : state.links) {
    if (l.status != "linked") pending.push_back(l.cuda_dir);
  }
  for (const auto& cuda_dir : pending) {
    auto lock = lock_toolkit(ctx, cuda_dir, LockWait::kNoWait);
    if (!lock) continue;  // busy: next time
    auto line = recover_toolkit_link(*ctx.fs, store, state, cuda_dir);
    if (!line) {
      report.refused.push_back(line.error());
      continue;
    }
    if (!line->empty()) report.repaired.push_back(*line);
  }
  return report;
}

void print_recovery(const RecoveryReport& report) {
  for (const auto& r : report.repaired) std::cerr << "cudnnup: " << r << std::endl;
  for (const auto& e : report.refused) std::cerr << "cudnnup: warning: " << e.message << std::endl;
}

void recover_at_start(AppContext& ctx) {
  StoreLayout store = StoreLayout::for_environment(ctx.env);
  if (!ctx.fs->is_dir(store.root)) return;
  bool journals = false;
  if (auto entries = ctx.fs->list_dir(store.journal_dir())) journals = !entries->empty();
  auto state = load_state(*ctx.fs, store);
  if (!state) return;  // the command reports a damaged state.json itself when it needs it
  if (!journals && !store_needs_repair(*ctx.fs, store, *state)) return;
  auto lock = lock_store_root(ctx, store, LockWait::kNoWait, /*create=*/false);
  if (!lock) return;  // another cudnnup is working; its leftovers are its own
  state = load_state(*ctx.fs, store);  // as it is now that nobody else can change it
  if (!state) return;
  auto report = recover_with_lock_held(ctx, store, *state);
  if (!report) {
    std::cerr << "cudnnup: warning: " << report.error().message << std::endl;
    return;
  }
  print_recovery(*report);
}

}  // namespace cudnnup
