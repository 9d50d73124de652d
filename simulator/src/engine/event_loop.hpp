// One libevent loop on its own thread, with a way for other threads to run work on it.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

struct event;
struct event_base;

namespace sim::engine {

class EventLoop {
 public:
  EventLoop();  // creates the base (pthreads-aware); check base() != nullptr
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  event_base* base() const { return base_; }
  void startThread();
  // Runs `task` on the loop thread and waits for it; runs it at once when called on that thread
  // or when the loop is not running (before start, after stop).
  void runSync(const std::function<void()>& task);
  // Queues `task` for the loop thread without waiting; dropped when the loop is not running.
  void post(std::function<void()> task);
  // Runs `task` on the loop, then stops the loop and joins the thread.
  void stopThread(const std::function<void()>& lastTask);
  bool onLoopThread() const;

 private:
  static void onWakeup(int, short, void* self);
  void drainTasks();

  event_base* base_ = nullptr;
  event* wakeup_ = nullptr;
  std::thread thread_;
  std::atomic<std::thread::id> loopThreadId_{};
  std::mutex mutex_;
  std::deque<std::function<void()>> tasks_;
  bool running_ = false;
};

// Work for the loop from threads that may outlive it (a BMC's image download): once closed (on
// the loop thread, before what the work would touch goes away), nothing posted runs.
class Mailbox : public std::enable_shared_from_this<Mailbox> {
 public:
  explicit Mailbox(EventLoop& loop) : loop_(&loop) {}
  void post(std::function<void()> task);
  void close();

 private:
  bool open();
  std::mutex mutex_;
  EventLoop* loop_;
  bool closed_ = false;
};

}  // namespace sim::engine
