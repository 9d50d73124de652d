#include "engine/event_loop.hpp"

#include <future>

#include <event2/event.h>
#include <event2/thread.h>

namespace sim::engine {

EventLoop::EventLoop() {
  static const int kThreadsReady = evthread_use_pthreads();  // once per process
  (void)kThreadsReady;
  base_ = event_base_new();
  if (base_ != nullptr) wakeup_ = event_new(base_, -1, EV_PERSIST, &EventLoop::onWakeup, this);
}

EventLoop::~EventLoop() {
  stopThread({});
  if (wakeup_ != nullptr) event_free(wakeup_);
  // Freed bufferevents (TLS ones especially) finish in deferred callbacks; run those once, or
  // event_base_free would leak the connections that were open at stop.
  if (base_ != nullptr) event_base_loop(base_, EVLOOP_NONBLOCK);
  if (base_ != nullptr) event_base_free(base_);
}

void EventLoop::startThread() {
  std::lock_guard lock(mutex_);
  if (running_ || base_ == nullptr) return;
  event_add(wakeup_, nullptr);
  running_ = true;
  thread_ = std::thread([this] {
    loopThreadId_ = std::this_thread::get_id();  // before any callback can ask
    event_base_loop(base_, EVLOOP_NO_EXIT_ON_EMPTY);
  });
  loopThreadId_ = thread_.get_id();
}

bool EventLoop::onLoopThread() const {
  return std::this_thread::get_id() == loopThreadId_;
}

void EventLoop::runSync(const std::function<void()>& task) {
  std::promise<void> done;
  {
    std::unique_lock lock(mutex_);
    if (!running_ || onLoopThread()) {
      lock.unlock();
      task();
      return;
    }
    tasks_.emplace_back([&task, &done] {
      task();
      done.set_value();
    });
  }
  event_active(wakeup_, EV_READ, 0);
  done.get_future().wait();
}

void EventLoop::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (!running_) return;
    tasks_.push_back(std::move(task));
  }
  event_active(wakeup_, EV_READ, 0);
}

void EventLoop::stopThread(const std::function<void()>& lastTask) {
  {
    std::lock_guard lock(mutex_);
    if (!running_) {
      if (lastTask) lastTask();
      return;
    }
    tasks_.emplace_back([this, lastTask] {
      if (lastTask) lastTask();
      event_base_loopbreak(base_);
    });
  }
  event_active(wakeup_, EV_READ, 0);
  thread_.join();
  std::deque<std::function<void()>> leftovers;
  {
    std::lock_guard lock(mutex_);
    running_ = false;
    loopThreadId_ = std::thread::id{};
    leftovers.swap(tasks_);
  }
  for (auto& task : leftovers) task();  // queued while stopping: run so no caller waits forever
}

void EventLoop::onWakeup(int, short, void* self) {
  static_cast<EventLoop*>(self)->drainTasks();
}

void EventLoop::drainTasks() {
  for (;;) {
    std::function<void()> task;
    {
      std::lock_guard lock(mutex_);
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void Mailbox::post(std::function<void()> task) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  loop_->post([self = shared_from_this(), task = std::move(task)] {
    if (self->open()) task();
  });
}

void Mailbox::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

bool Mailbox::open() {
  std::lock_guard lock(mutex_);
  return !closed_;
}

}  // namespace sim::engine
