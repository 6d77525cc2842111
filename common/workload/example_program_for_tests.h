// Test-only: the game program of examples/small.json, the repository's
// smallest example workload. Needs MMAPZERO_SOURCE_DIR (every test target
// defines it); a failure to read it fails the calling test.
#ifndef MMAPZERO_COMMON_WORKLOAD_EXAMPLE_PROGRAM_FOR_TESTS_H_
#define MMAPZERO_COMMON_WORKLOAD_EXAMPLE_PROGRAM_FOR_TESTS_H_

#include <memory>

#include "common/game/program.h"
#include "common/workload/proto_io.h"
#include "gtest/gtest.h"

namespace mmapzero {

inline std::shared_ptr<const game::Program> SmallExampleProgram() {
  auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  if (!workload.ok()) return nullptr;
  auto program = game::Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : nullptr;
}

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_EXAMPLE_PROGRAM_FOR_TESTS_H_
