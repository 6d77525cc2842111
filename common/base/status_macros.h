// Early-return helpers for absl::Status, which Debian's Abseil (20220623)
// does not ship. Same shape as Reverb's support/status_macros.h.
#ifndef MMAPZERO_COMMON_BASE_STATUS_MACROS_H_
#define MMAPZERO_COMMON_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define MMAPZERO_CONCAT_INNER_(a, b) a##b
#define MMAPZERO_CONCAT_(a, b) MMAPZERO_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when it is not OK.
// Its status has a name of its own (__COUNTER__), so that one nested in
// another's expression (in a lambda) shadows nothing.
#define RETURN_IF_ERROR(expr) \
  RETURN_IF_ERROR_IMPL_(MMAPZERO_CONCAT_(mmapzero_status_, __COUNTER__), expr)
#define RETURN_IF_ERROR_IMPL_(status, expr) \
  do {                                      \
    const ::absl::Status status = (expr);   \
    if (!status.ok()) return status;        \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): evaluates the StatusOr expr; on error returns
// its status, otherwise moves the value into lhs (which may declare a
// variable, e.g. `auto x`).
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(MMAPZERO_CONCAT_(statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                           \
  if (!statusor.ok()) return statusor.status();     \
  lhs = std::move(statusor).value()

#endif  // MMAPZERO_COMMON_BASE_STATUS_MACROS_H_
