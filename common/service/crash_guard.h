// Job threads run code that may throw: LibTorch reports errors as
// c10::Error exceptions, and a config at its allowed maxima can make an
// allocation fail (std::bad_alloc). An exception escaping a thread ends the
// whole process through std::terminate, taking every other job of the
// worker with it and leaving the job's state unknown to the coordinator.
// RunCatchingCrash turns it into text that the worker reports as the job's
// fatal error (JobCounters.fatal_error), which fails that job alone.
#ifndef MMAPZERO_COMMON_SERVICE_CRASH_GUARD_H_
#define MMAPZERO_COMMON_SERVICE_CRASH_GUARD_H_

#include <functional>
#include <string>

namespace mmapzero::service {

// Runs `body`; "" when it returned, else what escaped it ("uncaught
// exception: <what()>"), after logging it as `job_crashed` for `job_id`.
std::string RunCatchingCrash(const std::string& job_id,
                             const std::function<void()>& body);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_CRASH_GUARD_H_
