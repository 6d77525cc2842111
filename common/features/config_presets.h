// MMap-MuZero's configuration as data (proto/muzero.proto): the paper's
// values (Table 6) and a CPU-sized preset as named presets, loading from a
// JSON file that may start from a preset, "field.path=value" overrides,
// range checks, and the JSON every run prints at its start.
// See configs/README.md for what each field means.
#ifndef MMAPZERO_COMMON_FEATURES_CONFIG_PRESETS_H_
#define MMAPZERO_COMMON_FEATURES_CONFIG_PRESETS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/muzero.pb.h"

namespace mmapzero::features {

// The paper's configuration (Wang et al. 2023, Table 6).
MuZeroConfig PaperPreset();
// Small enough to learn on a 2-core machine in minutes.
MuZeroConfig CpuPreset();
// "paper" or "cpu"; NotFound otherwise.
absl::StatusOr<MuZeroConfig> PresetByName(const std::string& name);

// Sets one field from "a.b.c=value" (proto field names; enums by name or
// number; bools as true/false/1/0). Errors name the field and the value.
absl::Status ApplyOverride(const std::string& assignment, MuZeroConfig* config);

// `preset_or_path` is a preset name or a JSON MuZeroConfig file; a file whose
// "preset" names a preset starts from it and sets only the fields it lists.
// Then applies `overrides` in order and checks the result.
absl::StatusOr<MuZeroConfig> LoadMuZeroConfig(
    const std::string& preset_or_path,
    const std::vector<std::string>& overrides);

// The muzero solver's `--set key=value` settings (in process or on the
// local cluster) split into the config they make and the rest: "config"
// names a preset or a JSON file (default "cpu"), a dotted key
// ("search.simulations") overrides that field; every other key is the
// caller's to read.
struct MuZeroConfigSettings {
  std::string config = "cpu";
  std::vector<std::string> overrides;  // "a.b=value", in key order
  std::map<std::string, std::string> rest;
};
MuZeroConfigSettings SplitMuZeroConfigSettings(
    const std::map<std::string, std::string>& settings);

// The names the `network` setting (training.initial_network) takes
// besides a file's path: a fresh network, the shipped pretrained one
// (training/initial_network.h).
inline constexpr char kNoNetwork[] = "none";
inline constexpr char kDefaultNetwork[] = "default";
// What a `network` value names. A value with a '/' is a file's path; the
// coordinator resolves a registered network's name or an earlier job's id
// ("job-000123") at submit to "sha256:" and the checksum of the copy it
// keeps for the job, which the job's learner fetches.
enum class NetworkReference {
  kUnset,     // "": the shipped default where it fits
  kNone,      // a fresh network
  kDefault,   // the shipped network
  kFile,      // a path
  kJob,       // "job-" and digits: that job's network
  kChecksum,  // "sha256:" and 64 hex digits: the job's copy (coordinator)
  kRegistry,  // a registered network's name
};
inline constexpr char kNetworkChecksumPrefix[] = "sha256:";
NetworkReference ClassifyNetwork(absl::string_view network);
// Whether `network` names a network the coordinator holds (a registered
// name or a job id) rather than a file, none or the default.
inline bool NamesCoordinatorNetwork(absl::string_view network) {
  const NetworkReference kind = ClassifyNetwork(network);
  return kind == NetworkReference::kJob || kind == NetworkReference::kRegistry;
}
// Whether a `network` value is a file's path as the in-process solver and
// the learner read it: anything but the names above (a registry name
// there is a missing file, named as such).
inline bool NamesNetworkFile(const std::string& network) {
  return !network.empty() && network != kNoNetwork &&
         network != kDefaultNetwork &&
         ClassifyNetwork(network) != NetworkReference::kChecksum;
}
// A registered network's name: 1-64 letters, digits, '.', '_', '-',
// starting with a letter or digit, and not "none", "default" or a job id.
// InvalidArgument naming `field` and the value.
absl::Status CheckNetworkName(absl::string_view name,
                              absl::string_view field = "name");

// The `network` setting taken out of `settings->rest` and made the
// override training.initial_network: `none` and `default` as they are, an
// existing file (a warm start from an earlier job's network) as its
// absolute path, so that a service started elsewhere finds it, and
// otherwise a registered network's name or a job id as they are (the
// coordinator resolves them; in process they are refused when loaded).
// InvalidArgument naming `flag` (how the user gave it) for a value that is
// neither an existing file nor such a name; nothing when the setting is
// absent (the job then starts from the default where it fits).
absl::Status TakeInitialNetwork(MuZeroConfigSettings* settings,
                                absl::string_view flag = "--set network");

// Every size and ratio in range; errors name the field and the value.
absl::Status CheckMuZeroConfig(const MuZeroConfig& config);

// Indented JSON with every field, defaults included: printed at the start of
// every run, and loadable by LoadMuZeroConfig.
std::string FormatConfig(const MuZeroConfig& config);

}  // namespace mmapzero::features

#endif  // MMAPZERO_COMMON_FEATURES_CONFIG_PRESETS_H_
