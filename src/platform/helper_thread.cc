#include "platform/helper_thread.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace cudnnup {
namespace {

// Never destroyed: the thread may still wait on it while static objects are destroyed at exit.
struct HelperQueue {
  std::mutex mutex;
  std::condition_variable posted;
  std::deque<std::function<void()>> work;
};

[[noreturn]] void serve(HelperQueue* queue) {
  // Started off its creator's CPU; from now on the scheduler may put it anywhere again, so that
  // it never waits for one busy CPU while another is idle.
  allow_every_cpu();
  for (;;) {
    std::function<void()> next;
    {
      std::unique_lock lock(queue->mutex);
      queue->posted.wait(lock, [queue] { return !queue->work.empty(); });
      next = std::move(queue->work.front());
      queue->work.pop_front();
    }
    next();
  }
}

// Throws when no thread can be started (a process or thread limit); the next call tries again.
HelperQueue* started_queue() {
  static HelperQueue* queue = [] {
    auto q = std::make_unique<HelperQueue>();
    std::thread thread(serve, q.get());
    keep_off_this_cpu(thread);
    thread.detach();
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
  queue->posted.notify_one();
}

}  // namespace cudnnup
