#include "bench/quality/quality_workloads.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/hlo/hlo_importer.h"
#include "common/workload/generator.h"

namespace mmapzero::bench {
namespace {

struct GeneratedCase {
  ModelFamily family;
  int buffers;
  bool on_request = false;  // only when named in QualityWorkloadOptions.only
};

// The paper's range, as in bench/game: about 300, 3,000 and 10,000 buffers;
// cnn-3000 is the learning benchmark's second 3,000-buffer program.
constexpr GeneratedCase kGenerated[] = {
    {ModelFamily::kMlp, 300},
    {ModelFamily::kTransformer, 3000},
    {ModelFamily::kTransformer, 10000},
    {ModelFamily::kCnn, 3000, /*on_request=*/true}};

bool Wanted(const QualityWorkloadOptions& options, const std::string& name) {
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), name) !=
             options.only.end();
}

// Compiles `workload` and appends it, or notes why it cannot be played.
void Add(std::string name, std::string source, Workload workload,
         std::vector<QualityWorkload>* out, std::vector<std::string>* notes) {
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(workload);
  if (!program.ok()) {
    notes->push_back(absl::StrCat(name, " left out: ", source, ": ",
                                  program.status().message()));
    return;
  }
  out->push_back({std::move(name), std::move(source), std::move(workload),
                  *std::move(program)});
}

std::vector<std::string> HloFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void AddImported(const QualityWorkloadOptions& options,
                 std::vector<QualityWorkload>* out,
                 std::vector<std::string>* notes) {
  std::error_code error;
  if (options.hlo_dir.empty() ||
      !std::filesystem::is_directory(options.hlo_dir, error)) {
    notes->push_back(absl::StrCat("no HLO directory at '", options.hlo_dir,
                                  "': imported workloads skipped"));
    return;
  }
  for (const std::string& path : HloFiles(options.hlo_dir)) {
    const std::string name =
        absl::StrCat("hlo:", std::filesystem::path(path).stem().string());
    if (!Wanted(options, name)) continue;
    hlo::HloImportOptions import;
    import.hardware = options.hardware;
    import.alignment = options.alignment;
    import.source_name = path;
    absl::StatusOr<hlo::HloImportResult> result =
        hlo::ImportHloFile(path, import);
    if (!result.ok()) {
      notes->push_back(absl::StrCat(
          name, " left out: ",
          result.status().code() == absl::StatusCode::kUnimplemented
              ? "importer not available yet"
              : result.status().message()));
      continue;
    }
    if (!result->warnings.empty()) {
      notes->push_back(absl::StrCat(name, ": imported with ",
                                    result->warnings.size(),
                                    " approximation warning(s)"));
    }
    Add(name, path, std::move(result->workload), out, notes);
  }
}

void AddGenerated(const QualityWorkloadOptions& options,
                  std::vector<QualityWorkload>* out,
                  std::vector<std::string>* notes) {
  for (const GeneratedCase& c : kGenerated) {
    const std::string name =
        absl::StrCat(ModelFamilyName(c.family), "-", c.buffers);
    if (!Wanted(options, name)) continue;
    if (c.on_request &&
        std::find(options.only.begin(), options.only.end(), name) ==
            options.only.end()) {
      continue;
    }
    GeneratorOptions generator;
    generator.family = c.family;
    generator.mode = ProgramMode::kTraining;
    generator.target_buffers = c.buffers;
    generator.seed = 1;
    // Generated with a built-in profile's name, then given the bench's
    // profile (which may come from a file): the roofline latencies derive
    // from Workload.hardware, the capacity from memory_size.
    generator.hardware_profile = "tpu-v4i";
    generator.memory_size = options.hardware.fast_memory_bytes();
    generator.alignment = options.alignment;
    const std::string source = absl::StrCat(
        "generated: ", name, " training, seed 1, ", options.hardware.name());
    absl::StatusOr<Workload> workload = GenerateWorkload(generator);
    if (!workload.ok()) {
      notes->push_back(
          absl::StrCat(name, " left out: ", workload.status().message()));
      continue;
    }
    *workload->mutable_hardware() = options.hardware;
    Add(name, source, *std::move(workload), out, notes);
  }
}

}  // namespace

std::vector<QualityWorkload> LoadQualityWorkloads(
    const QualityWorkloadOptions& options, std::vector<std::string>* notes) {
  std::vector<QualityWorkload> workloads;
  AddImported(options, &workloads, notes);
  AddGenerated(options, &workloads, notes);
  return workloads;
}

}  // namespace mmapzero::bench
