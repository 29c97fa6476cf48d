// One helper thread for side work that should run now, beside the thread that asks for it.
#pragma once

#include <functional>
#include <thread>

namespace cudnnup {

// Runs `work` on the process's helper thread, after the work posted before it. The thread starts
// at the first call; each post sends it off the caller's CPU where the OS lets a program say so
// (keep_off_this_cpu), and once the work runs it may use every CPU again (allow_every_cpu). It
// lives until the process ends, so it never pays for ending, which for a thread that allocated
// means mimalloc cleaning up its heap (~1 M instructions, docs/benchmarks.md 2026-12-07, stop 40).
// The caller learns that `work` ended from what `work` itself sets (a promise), and must wait for
// that before anything `work` refers to goes. Throws std::system_error when no thread can be
// started (a process or thread limit): then nothing was posted. An exception that escapes `work`
// ends the process (std::terminate), as on any thread.
void run_beside(std::function<void()> work);

// Keeps a new thread off the CPU of the thread that calls this. On the build machine Linux left a
// new thread queued on its creator's CPU while the creator stayed busy: it first ran ~2.2 ms later
// (bench/helper_thread_bench), longer than the helper's first task; moved at once, ~0.1 ms.
// Nothing happens with one CPU allowed, or where the OS has no such call (Windows dispatches a
// ready thread to an idle processor itself:
// https://learn.microsoft.com/windows/win32/procthread/multiple-processors).
void keep_off_this_cpu(std::thread& thread);

// Lets the calling thread run on every CPU the process may use again (the main thread's set),
// once keep_off_this_cpu has done its part: it runs, and later load balancing may move it.
void allow_every_cpu();

}  // namespace cudnnup
