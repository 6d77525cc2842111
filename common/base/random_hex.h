// 128 bits from the operating system's random source as 32 hex digits: an
// identifier no other process draws (a job's uid, a submit's idempotency
// key), with no state to seed or share.
#ifndef MMAPZERO_COMMON_BASE_RANDOM_HEX_H_
#define MMAPZERO_COMMON_BASE_RANDOM_HEX_H_

#include <string>

namespace mmapzero {

std::string RandomHex128();

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_RANDOM_HEX_H_
