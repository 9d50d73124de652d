// One libevent loop on its own thread, with a way for other threads to run work on it.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
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

}  // namespace sim::engine
