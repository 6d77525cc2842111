#include "common/model/network_checkpoint.h"

#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/features/feature_hash.h"

namespace mmapzero::model {
namespace {

// Archive keys of the stored integers (int64 scalar buffers): the file
// version, then the sizes and the feature hash (HeaderFields).
constexpr char kKeyPrefix[] = "mmapzero_";
constexpr char kFileVersion[] = "file_version";

struct Field {
  const char* name;
  int64_t value;
};

std::vector<Field> HeaderFields(const CheckpointHeader& header) {
  const NetworkConfig& c = header.config;
  return {{"hidden_size", c.hidden_size()},
          {"resnet_channels", c.resnet_channels()},
          {"resnet_blocks", c.resnet_blocks()},
          {"mlp_hidden", c.mlp_hidden()},
          {"value_support_size", c.value_support_size()},
          {"reward_support_size", c.reward_support_size()},
          {"time_bins", header.shape.time_bins},
          {"byte_bins", header.shape.byte_bins},
          {"vector_size", header.shape.vector_size},
          {"trunk", c.trunk()},
          {"feature_hash", header.shape.feature_hash}};
}

void SetHeaderField(const std::string& name, int value,
                    CheckpointHeader* header) {
  NetworkConfig& c = header->config;
  if (name == "hidden_size") c.set_hidden_size(value);
  if (name == "resnet_channels") c.set_resnet_channels(value);
  if (name == "resnet_blocks") c.set_resnet_blocks(value);
  if (name == "mlp_hidden") c.set_mlp_hidden(value);
  if (name == "value_support_size") c.set_value_support_size(value);
  if (name == "reward_support_size") c.set_reward_support_size(value);
  if (name == "time_bins") header->shape.time_bins = value;
  if (name == "byte_bins") header->shape.byte_bins = value;
  if (name == "vector_size") header->shape.vector_size = value;
  if (name == "trunk") c.set_trunk(static_cast<NetworkConfig::Trunk>(value));
  if (name == "feature_hash") header->shape.feature_hash = value;
}

// An exception's message; LibTorch's (c10::Error) without its backtrace.
std::string ErrorText(const std::exception& e) {
  if (const auto* error = dynamic_cast<const c10::Error*>(&e)) {
    return error->what_without_backtrace();
  }
  return e.what();
}

absl::Status OpenArchive(const std::string& path, torch::Device device,
                         torch::serialize::InputArchive* archive) {
  try {
    archive->load_from(path, device);
  } catch (const std::exception& e) {
    return absl::NotFoundError(
        absl::StrCat("checkpoint ", path, ": cannot read: ", ErrorText(e)));
  }
  return absl::OkStatus();
}

// The integer stored under kKeyPrefix + `name`; none when the archive
// has no such entry. `what` names the source in errors.
absl::StatusOr<std::optional<int64_t>> ReadStoredInteger(
    const std::string& what, torch::serialize::InputArchive& archive,
    const char* name) {
  torch::Tensor value;
  bool found = false;
  try {
    found = archive.try_read(absl::StrCat(kKeyPrefix, name), value,
                             /*is_buffer=*/true);
  } catch (const std::exception& e) {
    return absl::DataLossError(
        absl::StrCat(what, ": cannot read ", name, ": ", ErrorText(e)));
  }
  if (!found) return std::optional<int64_t>();
  if (value.numel() != 1 || value.scalar_type() != torch::kLong) {
    return absl::DataLossError(absl::StrCat(what, ": stored ", name,
                                            " is not one integer (",
                                            value.numel(), " values)"));
  }
  return std::optional<int64_t>(value.item<int64_t>());
}

// The archive's kNetworkFileVersion: absent in files of mmapzero before
// version 2 (they have no feature hash), newer in files of a newer one.
absl::Status CheckFileVersion(const std::string& what,
                              torch::serialize::InputArchive& archive) {
  ASSIGN_OR_RETURN(const std::optional<int64_t> version,
                   ReadStoredInteger(what, archive, kFileVersion));
  if (!version.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": a network file of version 1 (no file version or feature "
        "hash: written before the observation gained its hardware section); "
        "this build reads version ", kNetworkFileVersion,
        " only: train a new network (or start the job again)"));
  }
  if (*version != kNetworkFileVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": network file version ", *version,
        "; this build reads version ", kNetworkFileVersion,
        *version > kNetworkFileVersion ? " (written by a newer mmapzero)"
                                       : ""));
  }
  return absl::OkStatus();
}

// `what` names the source in errors ("checkpoint <path>").
absl::StatusOr<CheckpointHeader> ReadHeader(
    const std::string& what, torch::serialize::InputArchive& archive) {
  RETURN_IF_ERROR(CheckFileVersion(what, archive));
  CheckpointHeader header;
  for (const Field& field : HeaderFields(header)) {
    ASSIGN_OR_RETURN(const std::optional<int64_t> stored,
                     ReadStoredInteger(what, archive, field.name));
    if (!stored.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": no stored ", field.name,
                       " (not an mmapzero network checkpoint?)"));
    }
    if (*stored < 0 || *stored > std::numeric_limits<int32_t>::max()) {
      return absl::DataLossError(
          absl::StrCat(what, ": stored ", field.name, " is ", *stored));
    }
    SetHeaderField(field.name, static_cast<int>(*stored), &header);
  }
  return header;
}

// Every parameter and buffer of `network` by its full name.
std::map<std::string, torch::Tensor> TensorsByName(
    const MuZeroNetwork& network) {
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : network->named_parameters()) {
    tensors.emplace("parameter " + item.key(), item.value());
  }
  for (const auto& item : network->named_buffers()) {
    tensors.emplace("buffer " + item.key(), item.value());
  }
  return tensors;
}

std::string ShapeText(const torch::Tensor& tensor) {
  std::ostringstream text;
  text << tensor.sizes();
  return text.str();
}

// Checks the stored sizes against `network`'s, then loads, all or nothing:
// `network` is unchanged unless the whole archive loads with the shapes
// and types it has and finite values.
absl::Status LoadFromArchive(const std::string& what,
                             torch::serialize::InputArchive& archive,
                             MuZeroNetwork& network) {
  absl::StatusOr<CheckpointHeader> stored = ReadHeader(what, archive);
  if (!stored.ok()) return stored.status();
  // The feature hash first: another feature configuration is what makes
  // the observation's sizes differ too, and no size would make it playable.
  if (stored->shape.feature_hash != network->shape().feature_hash) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": trained on observations of another feature configuration "
        "(feature hash ", stored->shape.feature_hash, "; this network's is ",
        network->shape().feature_hash, "): the features.* fields or the "
        "observation layout (version ", features::kFeatureLayoutVersion,
        " here) differ; such a network cannot play these observations"));
  }
  const std::vector<Field> expected =
      HeaderFields({network->config(), network->shape()});
  const std::vector<Field> found = HeaderFields(*stored);
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].value != found[i].value) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", found[i].name, " is ", found[i].value,
                       " but the network has ", expected[i].value));
    }
  }
  // Into a network of the same sizes first: LibTorch replaces tensors one
  // by one without checking their shapes, so a damaged archive would leave
  // `network` half loaded, or with a tensor of another shape.
  absl::StatusOr<MuZeroNetwork> scratch =
      CreateNetwork(network->config(), network->shape(), network->device());
  if (!scratch.ok()) {
    return absl::InternalError(
        absl::StrCat(what, ": ", scratch.status().message()));
  }
  try {
    torch::NoGradGuard no_grad;
    (*scratch)->load(archive);
    const auto loaded = TensorsByName(*scratch);
    const auto target = TensorsByName(network);
    for (const auto& [name, tensor] : target) {
      const torch::Tensor& from = loaded.at(name);
      if (!from.sizes().equals(tensor.sizes()) ||
          from.scalar_type() != tensor.scalar_type()) {
        return absl::DataLossError(
            absl::StrCat(what, ": ", name, " has shape ", ShapeText(from),
                         " but the network's is ", ShapeText(tensor)));
      }
      if (from.is_floating_point() &&
          !torch::isfinite(from).all().item<bool>()) {
        return absl::DataLossError(absl::StrCat(
            what, ": ", name, " holds values that are not finite"));
      }
    }
    for (const auto& [name, tensor] : target) tensor.copy_(loaded.at(name));
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(what, ": ", ErrorText(e)));
  }
  return absl::OkStatus();
}

// The archive's bytes; `what` names the source in errors.
absl::StatusOr<std::string> Serialize(const std::string& what,
                                      const MuZeroNetwork& network) {
  std::ostringstream stream;
  try {
    torch::serialize::OutputArchive archive;
    network->save(archive);
    const CheckpointHeader header{network->config(), network->shape()};
    std::vector<Field> fields = HeaderFields(header);
    fields.insert(fields.begin(), Field{kFileVersion, kNetworkFileVersion});
    for (const Field& field : fields) {
      archive.write(absl::StrCat(kKeyPrefix, field.name),
                    torch::tensor(field.value, torch::kLong),
                    /*is_buffer=*/true);
    }
    archive.save_to(stream);
  } catch (const c10::Error& e) {
    return absl::InternalError(
        absl::StrCat(what, ": cannot serialize: ", e.what_without_backtrace()));
  }
  return stream.str();
}

}  // namespace

absl::Status SaveCheckpoint(const MuZeroNetwork& network,
                            const std::string& path) {
  absl::StatusOr<std::string> bytes =
      Serialize(absl::StrCat("checkpoint ", path), network);
  if (!bytes.ok()) return bytes.status();
  return WriteFileAtomically(path, *bytes);
}

absl::StatusOr<CheckpointHeader> ReadCheckpointHeader(const std::string& path) {
  torch::serialize::InputArchive archive;
  absl::Status status = OpenArchive(path, torch::kCPU, &archive);
  if (!status.ok()) return status;
  return ReadHeader(absl::StrCat("checkpoint ", path), archive);
}

absl::Status LoadCheckpoint(const std::string& path, MuZeroNetwork& network) {
  torch::serialize::InputArchive archive;
  absl::Status status = OpenArchive(path, network->device(), &archive);
  if (!status.ok()) return status;
  return LoadFromArchive(absl::StrCat("checkpoint ", path), archive, network);
}

absl::StatusOr<MuZeroNetwork> LoadNetworkFromCheckpoint(const std::string& path,
                                                        torch::Device device) {
  absl::StatusOr<CheckpointHeader> header = ReadCheckpointHeader(path);
  if (!header.ok()) return header.status();
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(header->config, header->shape, device);
  if (!network.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint ", path, ": ", network.status().message()));
  }
  absl::Status status = LoadCheckpoint(path, *network);
  if (!status.ok()) return status;
  return network;
}

absl::StatusOr<std::string> SerializeNetworkParameters(
    const MuZeroNetwork& network) {
  return Serialize(kNetworkParametersFormat, network);
}

absl::Status LoadNetworkParameters(absl::string_view bytes,
                                   MuZeroNetwork& network) {
  const std::string what =
      absl::StrCat(kNetworkParametersFormat, " of ", bytes.size(), " bytes");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(bytes.data(), bytes.size(), network->device());
  } catch (const std::exception& e) {
    return absl::DataLossError(
        absl::StrCat(what, ": not a parameter archive: ", ErrorText(e)));
  }
  return LoadFromArchive(what, archive, network);
}

}  // namespace mmapzero::model
