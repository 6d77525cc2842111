// Test helpers for the HLO importer tests: import options on a named
// profile, and one random game played and validated on a workload.
#ifndef MMAPZERO_COMMON_HLO_HLO_TEST_UTIL_H_
#define MMAPZERO_COMMON_HLO_HLO_TEST_UTIL_H_

#include <cctype>
#include <string>

#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/hlo/hlo_importer.h"
#include "common/solvers/policy.h"
#include "common/validate/validator.h"
#include "common/workload/hardware_profiles.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {

inline HloImportOptions TestOptions(const std::string& profile = "tpu-v4i") {
  HloImportOptions options;
  options.hardware = HardwareProfileByName(profile).value();
  options.source_name = "test.hlo";
  return options;
}

// A GoogleTest name for a module file: its name up to the first '.', every
// character other than a letter or digit replaced by '_'.
inline std::string TestNameOfFile(std::string file) {
  file = file.substr(0, file.find('.'));
  for (char& c : file) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return file;
}

// Plays one random game on `workload` and expects the validator to accept it.
inline void ExpectRandomGameValidates(const Workload& workload, uint64_t seed) {
  auto program = game::Program::Create(workload);
  ASSERT_TRUE(program.ok()) << program.status();
  auto policy = solvers::MakePolicy("random", seed);
  ASSERT_TRUE(policy.ok()) << policy.status();
  game::MMapGame game(*program);
  solvers::PlayOut(game, **policy);
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, game.ToSolution());
  ASSERT_TRUE(report.ok) << workload.name() << ": "
                         << report.violations.front().rule << ": "
                         << report.violations.front().message;
}

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_TEST_UTIL_H_
