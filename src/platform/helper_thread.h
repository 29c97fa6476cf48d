// One helper thread for side work that should run now, beside the thread that asks for it.
#pragma once

#include <functional>
#include <thread>

namespace cudnnup {

// Runs `work` on the process's helper thread, after the work posted before it. The thread starts
// at the first call, on another CPU than its caller where the OS lets a program say so
// (keep_off_this_cpu), and lives until the process ends: it never exits, so it never pays for
// giving its memory back (mimalloc 2.0 spent ~0.3 ms of CPU in each ending thread's heap clean-up
// on the build machine, docs/benchmarks.md 2026-12-07). The caller learns that `work` ended from
// what `work` itself sets (a promise), and must wait for that before anything `work` refers to
// goes. An exception that escapes `work` ends the process (std::terminate), as on any thread.
void run_beside(std::function<void()> work);

// Keeps a new thread off the CPU of the thread that calls this. Linux queues a new thread on its
// creator's CPU and moves it to an idle one only at the next load balance: while the creator
// stays busy the new thread did not run for ~2 ms on the build machine, longer than the helper's
// first task. Moved at once, it started within ~0.2 ms. Nothing happens with one CPU allowed, or
// where the OS has no such call (Windows dispatches a ready thread to an idle processor itself:
// https://learn.microsoft.com/windows/win32/procthread/multiple-processors).
void keep_off_this_cpu(std::thread& thread);

}  // namespace cudnnup
