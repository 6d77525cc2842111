// What a network's inputs mean, as one number: a hash of the observation's
// layout version and every FeatureConfig field. A network is trained on
// observations of one feature configuration; played on another's it would
// read every slot as something else, with no error and bad moves. So each
// network carries the hash it was built for (model::ObservationShape, the
// checkpoint and parameter archives) and a load into a network of another
// hash is refused.
//
// Bump kFeatureLayoutVersion whenever Observe (feature_extractor.h) changes
// what a slot of the observation means without changing FeatureConfig: a
// new section, a rescaled feature, a loop model's inputs. Networks saved
// before the bump are then refused rather than misread.
#ifndef MMAPZERO_COMMON_FEATURES_FEATURE_HASH_H_
#define MMAPZERO_COMMON_FEATURES_FEATURE_HASH_H_

#include <cstdint>
#include <string>

#include "proto/muzero.pb.h"

namespace mmapzero::features {

// 2: the hardware section (kHardwareFeatures) after the global features.
inline constexpr int kFeatureLayoutVersion = 2;

// The text FeatureHash hashes: "layout=2;next_buffers=8;...", every field
// of FeatureConfig by field number, set or not.
std::string FeatureFingerprint(const FeatureConfig& config);

// FNV-1a of FeatureFingerprint, folded to 31 bits (a positive int32, as
// checkpoint headers store their fields); stable across builds and
// machines. Never 0, which stands for "not known" in ObservationShape.
int32_t FeatureHash(const FeatureConfig& config);

}  // namespace mmapzero::features

#endif  // MMAPZERO_COMMON_FEATURES_FEATURE_HASH_H_
