#include "common/solvers/preference_decoder.h"

#include <utility>

#include "common/base/check.h"

namespace mmapzero::solvers {

PreferenceDecoder::PreferenceDecoder(
    std::shared_ptr<const game::Program> program)
    : start_(std::move(program)), game_(start_) {}

void PreferenceDecoder::Rewind() {
  if (moves_ > 0) game_ = start_;
  moves_ = 0;
}

double PreferenceDecoder::Decode(absl::Span<const float> keys) {
  MMAPZERO_CHECK(static_cast<int64_t>(keys.size()) == NumKeys(game_.program()),
                 "one key per buffer and action");
  const float* data = keys.data();
  return Play([data](const game::MMapGame& game) {
    return BestLegalAction(game.LegalActionMask(),
                           data + game::kNumActions * game.CurrentBuffer());
  });
}

}  // namespace mmapzero::solvers
