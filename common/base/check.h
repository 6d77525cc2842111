// CHECK for broken invariants (never for input: input errors are Status).
// Prints the condition and location, then aborts.
#ifndef MMAPZERO_COMMON_BASE_CHECK_H_
#define MMAPZERO_COMMON_BASE_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define MMAPZERO_CHECK(condition, message)                                  \
  do {                                                                      \
    if (!(condition)) [[unlikely]] {                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s: %s\n", __FILE__,       \
                   __LINE__, #condition, message);                          \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

#endif  // MMAPZERO_COMMON_BASE_CHECK_H_
