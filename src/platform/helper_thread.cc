#include "platform/helper_thread.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace cudnnup {
namespace {

// Never destroyed: the thread may still wait on it while static objects are destroyed at exit
// (nor is `thread` ever joined or detached: its destructor never runs).
struct HelperQueue {
  std::mutex mutex;
  std::condition_variable posted;
  std::deque<std::function<void()>> work;
  std::thread thread;
};

[[noreturn]] void serve(HelperQueue* queue) {
  for (;;) {
    std::function<void()> next;
    {
      std::unique_lock lock(queue->mutex);
      queue->posted.wait(lock, [queue] { return !queue->work.empty(); });
      next = std::move(queue->work.front());
      queue->work.pop_front();
    }
    // Woken off its poster's CPU (run_beside); now that it runs, the scheduler may move it
    // anywhere again, so that it never waits for one busy CPU while another is idle.
    allow_every_cpu();
    next();
  }
}

// Throws when no thread can be started (a process or thread limit); the next call tries again.
HelperQueue* started_queue() {
  static HelperQueue* queue = [] {
    auto q = std::make_unique<HelperQueue>();
    q->thread = std::thread(serve, q.get());
    return q.release();
  }();
  return queue;
}

}  // namespace

void run_beside(std::function<void()> work) {
  HelperQueue* queue = started_queue();
  {
    std::lock_guard lock(queue->mutex);
    queue->work.push_back(std::move(work));
  }
  // A sleeping thread is woken on its waker's CPU, where it would wait for the poster as a new one
  // does: each post sends it elsewhere (serve() lifts that once the work runs).
  keep_off_this_cpu(queue->thread);
  queue->posted.notify_one();
}

}  // namespace cudnnup
