// The workloads of the quality table (bench/quality): every *.hlo file of a
// directory imported for one hardware profile, plus seeded generated
// workloads at the paper's sizes. Each is compiled once into a game Program
// that every solver shares.
#ifndef MMAPZERO_BENCH_QUALITY_QUALITY_WORKLOADS_H_
#define MMAPZERO_BENCH_QUALITY_QUALITY_WORKLOADS_H_

#include <memory>
#include <string>
#include <vector>

#include "common/game/program.h"
#include "proto/workload.pb.h"

namespace mmapzero::bench {

struct QualityWorkload {
  std::string name;    // "hlo:graphsage_tf", "transformer-3000", ...
  std::string source;  // the .hlo path, or the generator options
  Workload workload;
  std::shared_ptr<const game::Program> program;
};

struct QualityWorkloadOptions {
  HardwareProfile hardware;
  int64_t alignment = 1;  // Workload.alignment of every workload
  std::string hlo_dir;    // "" or missing: no imported workloads
  // Names to keep (QualityWorkload.name); empty keeps all.
  std::vector<std::string> only;
};

// Imported workloads first (sorted by file name), then mlp-300,
// transformer-3000, transformer-10000 (training, seed 1). A workload that
// cannot be made is left out with a line in `notes`, never an error.
std::vector<QualityWorkload> LoadQualityWorkloads(
    const QualityWorkloadOptions& options, std::vector<std::string>* notes);

}  // namespace mmapzero::bench

#endif  // MMAPZERO_BENCH_QUALITY_QUALITY_WORKLOADS_H_
