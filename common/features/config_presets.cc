#include "common/features/config_presets.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/base/plain_name.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver_util.h"

namespace mmapzero::features {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

// Sets a scalar field from text; InvalidArgument naming `path` on failure.
absl::Status SetScalar(const std::string& path, const std::string& value,
                       const FieldDescriptor* field, Message* message) {
  const Reflection* r = message->GetReflection();
  const auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config field ", path, ": invalid value \"", value, "\" (", what, ")"));
  };
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t v;
      if (!absl::SimpleAtoi(value, &v)) return bad("expected int32");
      r->SetInt32(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v;
      if (!absl::SimpleAtoi(value, &v)) return bad("expected int64");
      r->SetInt64(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t v;
      if (!absl::SimpleAtoi(value, &v)) return bad("expected uint32");
      r->SetUInt32(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v;
      if (!absl::SimpleAtoi(value, &v)) return bad("expected uint64");
      r->SetUInt64(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double v;
      if (!absl::SimpleAtod(value, &v) || !std::isfinite(v)) {
        return bad("expected a finite number");
      }
      r->SetDouble(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float v;
      if (!absl::SimpleAtof(value, &v) || !std::isfinite(v)) {
        return bad("expected a finite number");
      }
      r->SetFloat(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool v;
      if (!absl::SimpleAtob(value, &v)) return bad("expected true or false");
      r->SetBool(message, field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(message, field, value);
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const auto* e = field->enum_type()->FindValueByName(value);
      int number;
      if (e == nullptr && absl::SimpleAtoi(value, &number)) {
        e = field->enum_type()->FindValueByNumber(number);
      }
      if (e == nullptr) {
        std::string names;
        for (int i = 0; i < field->enum_type()->value_count(); ++i) {
          absl::StrAppend(&names, i ? ", " : "",
                          field->enum_type()->value(i)->name());
        }
        return absl::InvalidArgumentError(
            absl::StrCat("config field ", path, ": invalid value \"", value,
                         "\" (expected one of ", names, ")"));
      }
      r->SetEnum(message, field, e);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::InvalidArgumentError(absl::StrCat(
          "config field ", path, " is a message: name one of its fields"));
  }
  return absl::OkStatus();
}

// Range checks: each appends nothing and returns OK, or an error naming the
// field and the value.
template <typename T>
absl::Status InRange(const char* field, T value, T lo, T hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("config field ", field, " = ",
                                                 value, ": must be in [", lo,
                                                 ", ", hi, "]"));
}
absl::Status Positive(const char* field, double value, double hi) {
  if (value > 0 && value <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "config field ", field, " = ", value, ": must be in (0, ", hi, "]"));
}

}  // namespace

MuZeroConfig PaperPreset() {
  MuZeroConfig c;
  c.set_preset("paper");
  FeatureConfig* f = c.mutable_features();
  f->set_next_buffers(5);
  f->set_same_tensor_buffers(3);
  f->set_occupancy_time_bins(128);
  f->set_occupancy_byte_bins(128);
  f->set_occupancy_window_steps(128);
  f->set_target_occupancy_bins(128);
  f->set_supply_window_steps(64);
  NetworkConfig* n = c.mutable_network();
  n->set_hidden_size(512);
  n->set_resnet_channels(64);
  n->set_resnet_blocks(6);
  n->set_mlp_hidden(512);
  n->set_value_support_size(300);
  n->set_reward_support_size(300);
  SearchConfig* s = c.mutable_search();
  s->set_mode(SearchConfig::LEARNED_MODEL);
  s->set_simulations(400);
  s->set_discount(0.9999);
  s->set_pb_c_base(19652);
  s->set_pb_c_init(1.25);
  s->set_root_dirichlet_alpha(0.03);
  s->set_root_exploration_fraction(0.25);
  s->set_temperature_start(1.0);
  s->set_temperature_end(0.2);
  s->set_temperature_decay_steps(400000);
  s->set_gumbel_considered_actions(3);
  s->set_batch_games(64);
  TrainingConfig* t = c.mutable_training();
  t->set_batch_size(512);
  t->set_unroll_steps(5);
  t->set_td_steps(10);
  t->set_learning_rate(2e-4);
  t->set_weight_decay(1e-4);
  t->set_replay_size(20000);
  t->set_reanalyse_fraction(0.5);
  t->set_training_steps(1000000);
  t->set_checkpoint_interval(1000);
  t->set_seed(1);
  t->set_target_scaling(TrainingConfig::NORMALISED);
  t->set_demonstration_fraction(0.25);
  t->set_demonstration_interval_steps(50);
  return c;
}

MuZeroConfig CpuPreset() {
  MuZeroConfig c = PaperPreset();
  c.set_preset("cpu");
  FeatureConfig* f = c.mutable_features();
  f->set_next_buffers(3);
  f->set_same_tensor_buffers(2);
  f->set_occupancy_time_bins(4);
  f->set_occupancy_byte_bins(8);
  f->set_occupancy_window_steps(32);
  f->set_target_occupancy_bins(16);
  f->set_supply_window_steps(16);
  NetworkConfig* n = c.mutable_network();
  n->set_trunk(NetworkConfig::MLP);
  n->set_hidden_size(64);
  n->set_resnet_channels(1);
  n->set_resnet_blocks(0);
  n->set_mlp_hidden(64);
  n->set_value_support_size(12);
  n->set_reward_support_size(6);
  SearchConfig* s = c.mutable_search();
  s->set_mode(SearchConfig::GUMBEL_REAL_GAME);
  s->set_simulations(3);
  s->set_fast_move_fraction(0.75);
  s->set_best_start_fraction(1);
  s->set_best_start_window(4);
  s->set_best_start_deviation_rate(0.006);
  s->set_best_start_rejoin_moves(8);
  s->set_best_start_stall_variations(2048);
  s->set_best_start_rules(true);
  s->set_temperature_decay_steps(5000);
  s->set_batch_games(128);
  TrainingConfig* t = c.mutable_training();
  t->set_batch_size(256);
  t->set_td_steps(20);
  t->set_learning_rate(1e-3);
  t->set_replay_size(2000);
  t->set_reanalyse_fraction(0);
  t->set_training_steps(100000);
  t->set_checkpoint_interval(500);
  return c;
}

absl::StatusOr<MuZeroConfig> PresetByName(const std::string& name) {
  if (name == "paper") return PaperPreset();
  if (name == "cpu") return CpuPreset();
  return absl::NotFoundError(
      absl::StrCat("unknown config preset \"", name, "\" (known: paper, cpu)"));
}

absl::Status ApplyOverride(const std::string& assignment,
                           MuZeroConfig* config) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config override \"", assignment, "\": expected field.path=value"));
  }
  const std::string path = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  Message* message = config;
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const FieldDescriptor* field =
        message->GetDescriptor()->FindFieldByName(parts[i]);
    if (field == nullptr || field->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "config override \"", assignment, "\": unknown field \"", parts[i],
          "\" in ", message->GetDescriptor()->full_name()));
    }
    if (i + 1 < parts.size()) {
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        return absl::InvalidArgumentError(
            absl::StrCat("config override \"", assignment, "\": field \"",
                         parts[i], "\" is not a message"));
      }
      message = message->GetReflection()->MutableMessage(message, field);
      continue;
    }
    return SetScalar(path, value, field, message);
  }
  return absl::OkStatus();
}

MuZeroConfigSettings SplitMuZeroConfigSettings(
    const std::map<std::string, std::string>& settings) {
  MuZeroConfigSettings split;
  for (const auto& [key, value] : settings) {
    if (key == "config") {
      split.config = value;
    } else if (key.find('.') != std::string::npos) {
      split.overrides.push_back(absl::StrCat(key, "=", value));
    } else {
      split.rest[key] = value;
    }
  }
  return split;
}

NetworkReference ClassifyNetwork(absl::string_view network) {
  if (network.empty()) return NetworkReference::kUnset;
  if (network == kNoNetwork) return NetworkReference::kNone;
  if (network == kDefaultNetwork) return NetworkReference::kDefault;
  if (absl::StrContains(network, '/')) return NetworkReference::kFile;
  if (absl::StartsWith(network, kNetworkChecksumPrefix)) {
    return NetworkReference::kChecksum;
  }
  absl::string_view digits = network;
  if (absl::ConsumePrefix(&digits, "job-") && !digits.empty() &&
      std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
    return NetworkReference::kJob;
  }
  return CheckNetworkName(network).ok() ? NetworkReference::kRegistry
                                        : NetworkReference::kFile;
}

absl::Status CheckNetworkName(absl::string_view name, absl::string_view field) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", absl::CHexEscape(name.substr(0, 80)),
                     "' is not a network name: ", why));
  };
  if (name.empty() || name.size() > 64) return bad("1-64 characters");
  if (!absl::ascii_isalnum(name[0])) {
    return bad("it must start with a letter or digit");
  }
  if (!IsPlainName(name)) return bad("letters, digits, '.', '_' and '-' only");
  if (name == kNoNetwork || name == kDefaultNetwork) {
    return bad("none and default are reserved");
  }
  absl::string_view digits = name;
  if (absl::ConsumePrefix(&digits, "job-") &&
      std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
    return bad("job- and digits name a job's network");
  }
  return absl::OkStatus();
}

absl::Status TakeInitialNetwork(MuZeroConfigSettings* settings,
                                absl::string_view flag) {
  const auto it = settings->rest.find("network");
  if (it == settings->rest.end()) return absl::OkStatus();
  std::string network = it->second;
  switch (ClassifyNetwork(network)) {
    case NetworkReference::kNone:
    case NetworkReference::kDefault:
      break;
    case NetworkReference::kChecksum:
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": '", network,
          "': sha256: values are the coordinator's; name the network or job"));
    default: {  // a file here wins over a name the coordinator holds
      std::error_code error;
      const std::filesystem::path path =
          std::filesystem::absolute(network, error);
      if (!network.empty() && !error &&
          std::filesystem::is_regular_file(path, error)) {
        network = path.string();
      } else if (!NamesCoordinatorNetwork(network)) {
        return absl::InvalidArgumentError(absl::StrCat(
            flag, ": no network file '", network,
            "' (a finished job's learner checkpoint network.pt; or a "
            "registered network's name, a job id, none or default)"));
      }
    }
  }
  settings->overrides.push_back(
      absl::StrCat("training.initial_network=", network));
  settings->rest.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<MuZeroConfig> LoadMuZeroConfig(
    const std::string& preset_or_path,
    const std::vector<std::string>& overrides) {
  MuZeroConfig config;
  absl::StatusOr<MuZeroConfig> preset = PresetByName(preset_or_path);
  if (preset.ok()) {
    config = *std::move(preset);
  } else {
    ASSIGN_OR_RETURN(const std::string json, ReadWholeFile(preset_or_path));
    // JSON -> binary holds only the fields the file names, so merging it
    // into the preset keeps the preset's other values.
    static auto* resolver =
        google::protobuf::util::NewTypeResolverForDescriptorPool(
            kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool());
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    std::string binary;
    const auto status = google::protobuf::util::JsonToBinaryString(
        resolver,
        absl::StrCat(kTypeUrlPrefix, "/",
                     MuZeroConfig::descriptor()->full_name()),
        json, &binary, options);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          preset_or_path,
          ": invalid MuZeroConfig JSON: ", status.message().ToString()));
    }
    MuZeroConfig from_file;
    if (!from_file.ParseFromString(binary)) {
      return absl::InvalidArgumentError(
          absl::StrCat(preset_or_path, ": invalid MuZeroConfig"));
    }
    if (!from_file.preset().empty()) {
      absl::StatusOr<MuZeroConfig> base = PresetByName(from_file.preset());
      if (!base.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(preset_or_path, ": ", base.status().message()));
      }
      config = *std::move(base);
    }
    config.MergeFromString(binary);
  }
  for (const std::string& assignment : overrides) {
    RETURN_IF_ERROR(ApplyOverride(assignment, &config));
  }
  RETURN_IF_ERROR(CheckMuZeroConfig(config));
  return config;
}

absl::Status CheckMuZeroConfig(const MuZeroConfig& config) {
  const FeatureConfig& f = config.features();
  RETURN_IF_ERROR(InRange("features.next_buffers", f.next_buffers(), 0, 64));
  RETURN_IF_ERROR(
      InRange("features.same_tensor_buffers", f.same_tensor_buffers(), 0, 64));
  RETURN_IF_ERROR(InRange("features.occupancy_time_bins",
                          f.occupancy_time_bins(), 1, 1024));
  RETURN_IF_ERROR(InRange("features.occupancy_byte_bins",
                          f.occupancy_byte_bins(), 1, 1024));
  RETURN_IF_ERROR(InRange("features.occupancy_window_steps",
                          f.occupancy_window_steps(), 1, 1 << 20));
  RETURN_IF_ERROR(InRange("features.target_occupancy_bins",
                          f.target_occupancy_bins(), 1, 4096));
  RETURN_IF_ERROR(InRange("features.supply_window_steps",
                          f.supply_window_steps(), 0, 4096));

  const NetworkConfig& n = config.network();
  RETURN_IF_ERROR(InRange("network.hidden_size", n.hidden_size(), 1, 8192));
  RETURN_IF_ERROR(
      InRange("network.resnet_channels", n.resnet_channels(), 1, 1024));
  RETURN_IF_ERROR(InRange("network.resnet_blocks", n.resnet_blocks(), 0, 64));
  RETURN_IF_ERROR(InRange("network.mlp_hidden", n.mlp_hidden(), 1, 16384));
  RETURN_IF_ERROR(
      InRange("network.value_support_size", n.value_support_size(), 1, 10000));
  RETURN_IF_ERROR(InRange("network.reward_support_size",
                          n.reward_support_size(), 1, 10000));
  if (!NetworkConfig::Trunk_IsValid(n.trunk())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config field network.trunk = ", n.trunk(), ": unknown trunk"));
  }

  const SearchConfig& s = config.search();
  if (!SearchConfig::Mode_IsValid(s.mode())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config field search.mode = ", s.mode(), ": unknown mode"));
  }
  RETURN_IF_ERROR(InRange("search.simulations", s.simulations(), 1, 100000));
  RETURN_IF_ERROR(Positive("search.discount", s.discount(), 1.0));
  RETURN_IF_ERROR(Positive("search.pb_c_base", s.pb_c_base(), 1e12));
  RETURN_IF_ERROR(InRange("search.pb_c_init", s.pb_c_init(), 0.0, 1e6));
  RETURN_IF_ERROR(
      Positive("search.root_dirichlet_alpha", s.root_dirichlet_alpha(), 1e6));
  RETURN_IF_ERROR(InRange("search.root_exploration_fraction",
                          s.root_exploration_fraction(), 0.0, 1.0));
  RETURN_IF_ERROR(
      Positive("search.temperature_start", s.temperature_start(), 1e6));
  RETURN_IF_ERROR(Positive("search.temperature_end", s.temperature_end(), 1e6));
  RETURN_IF_ERROR(InRange<int64_t>("search.temperature_decay_steps",
                                   s.temperature_decay_steps(), 0,
                                   int64_t{1} << 40));
  RETURN_IF_ERROR(InRange("search.gumbel_considered_actions",
                          s.gumbel_considered_actions(), 1, 3));
  RETURN_IF_ERROR(InRange("search.batch_games", s.batch_games(), 1, 4096));
  RETURN_IF_ERROR(
      InRange("search.fast_move_fraction", s.fast_move_fraction(), 0.0, 0.999));
  RETURN_IF_ERROR(
      InRange("search.best_start_fraction", s.best_start_fraction(), 0.0, 1.0));
  RETURN_IF_ERROR(
      InRange("search.best_start_window", s.best_start_window(), 0, 1 << 30));
  RETURN_IF_ERROR(InRange("search.best_start_deviation_rate",
                          s.best_start_deviation_rate(), 0.0, 1.0));
  RETURN_IF_ERROR(InRange("search.best_start_rejoin_moves",
                          s.best_start_rejoin_moves(), 0, 1 << 30));
  RETURN_IF_ERROR(InRange("search.best_start_deviation_horizon",
                          s.best_start_deviation_horizon(), 0, 1 << 30));
  RETURN_IF_ERROR(InRange("search.best_start_stall_variations",
                          s.best_start_stall_variations(), 0, 1 << 30));

  const TrainingConfig& t = config.training();
  RETURN_IF_ERROR(InRange("training.batch_size", t.batch_size(), 1, 65536));
  RETURN_IF_ERROR(InRange("training.unroll_steps", t.unroll_steps(), 1, 64));
  RETURN_IF_ERROR(InRange("training.td_steps", t.td_steps(), 1, 100000));
  RETURN_IF_ERROR(Positive("training.learning_rate", t.learning_rate(), 1.0));
  RETURN_IF_ERROR(InRange("training.weight_decay", t.weight_decay(), 0.0, 1.0));
  RETURN_IF_ERROR(
      InRange("training.replay_size", t.replay_size(), 1, 100000000));
  RETURN_IF_ERROR(
      InRange("training.reanalyse_fraction", t.reanalyse_fraction(), 0.0, 1.0));
  RETURN_IF_ERROR(InRange<int64_t>("training.training_steps",
                                   t.training_steps(), 1, int64_t{1} << 40));
  RETURN_IF_ERROR(InRange("training.checkpoint_interval",
                          t.checkpoint_interval(), 1, 100000000));
  RETURN_IF_ERROR(InRange("training.demonstration_fraction",
                          t.demonstration_fraction(), 0.0, 1.0));
  RETURN_IF_ERROR(InRange("training.demonstration_interval_steps",
                          t.demonstration_interval_steps(), 0, 1000000));
  if (t.has_value_loss_weight()) {
    RETURN_IF_ERROR(InRange("training.value_loss_weight", t.value_loss_weight(),
                            0.0, 100.0));
  }
  if (t.has_reward_loss_weight()) {
    RETURN_IF_ERROR(InRange("training.reward_loss_weight",
                            t.reward_loss_weight(), 0.0, 100.0));
  }
  if (!TrainingConfig::TargetScaling_IsValid(t.target_scaling())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config field training.target_scaling = ", t.target_scaling(),
        ": unknown scaling"));
  }
  return absl::OkStatus();
}

std::string FormatConfig(const MuZeroConfig& config) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(config, &json, options);
  return json;
}

}  // namespace mmapzero::features
