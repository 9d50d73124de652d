// Result<T>: a value or a common::Error, shaped like std::expected (absent from g++ 12's C++20).
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/error.hpp"

namespace common {

// Wraps an error so that `return fail(err);` converts to any Result<T>.
struct Failure {
  Error error;
};
inline Failure fail(Error e) {
  return Failure{std::move(e)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Failure f) : state_(std::in_place_index<1>, std::move(f.error)) {}  // NOLINT
  Result(Error e) : state_(std::in_place_index<1>, std::move(e)) {}          // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& {
    assert(!ok());
    return std::get<1>(state_);
  }
  Error&& error() && {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }

  template <class U>
  T valueOr(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Failure f) : error_(std::move(f.error)), ok_(false) {}  // NOLINT
  Result(Error e) : error_(std::move(e)), ok_(false) {}          // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const& {
    assert(!ok_);
    return error_;
  }
  Error&& error() && {
    assert(!ok_);
    return std::move(error_);
  }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> success() {
  return {};
}

}  // namespace common

// Propagates the error of a Result-returning expression; usable in functions returning any Result.
#define PROV_TRY(expr)                                            \
  do {                                                            \
    auto prov_try_result_ = (expr);                               \
    if (!prov_try_result_) {                                      \
      return ::common::fail(std::move(prov_try_result_).error()); \
    }                                                             \
  } while (false)

#define PROV_CONCAT_INNER(a, b) a##b
#define PROV_CONCAT(a, b) PROV_CONCAT_INNER(a, b)
// Evaluates a Result-returning expression; on error returns it, else moves the value into `lhs`
// (a declaration such as `auto x` or an existing lvalue, hence unparenthesised).
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PROV_ASSIGN(lhs, expr)                                                            \
  auto PROV_CONCAT(prov_assign_result_, __LINE__) = (expr);                               \
  if (!PROV_CONCAT(prov_assign_result_, __LINE__)) {                                      \
    return ::common::fail(std::move(PROV_CONCAT(prov_assign_result_, __LINE__)).error()); \
  }                                                                                       \
  lhs = std::move(PROV_CONCAT(prov_assign_result_, __LINE__)).value()
// NOLINTEND(bugprone-macro-parentheses)
