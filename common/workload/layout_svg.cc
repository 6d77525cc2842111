#include "common/workload/layout_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"

namespace mmapzero {
namespace {

// Margins around the plot, pixels: title above, offset labels on the left,
// copy strip, time ticks and axis title below, legend on the right.
constexpr double kMarginLeft = 84;
constexpr double kMarginTop = 58;
constexpr double kMarginBottom = 62;
constexpr double kMarginRight = 24;
constexpr double kLegendWidth = 250;
constexpr double kMinPlotWidth = 100;
constexpr double kMinPlotHeight = 60;
constexpr int kMaxPixels = 100000;
constexpr int kMaxLegendEntries = 1000;
constexpr double kStripGap = 3;      // between the plot and the copy strip
constexpr double kStripHeight = 10;  // the copy strip
constexpr double kLegendRow = 18;
constexpr size_t kLegendNameBytes = 28;

double RightMargin(const LayoutSvgOptions& options) {
  return kMarginRight + (options.legend_entries > 0 ? kLegendWidth : 0);
}

// Escapes the five XML special characters; control characters that XML 1.0
// forbids become '?', so any tensor name yields a well-formed document.
std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        const auto byte = static_cast<unsigned char>(c);
        out += (byte < 0x20 && c != '\t' && c != '\n') ? '?' : c;
    }
  }
  return out;
}

// Cuts a UTF-8 string to at most `max_bytes` bytes on a character boundary,
// marking the cut with an ellipsis.
std::string Shorten(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return text.substr(0, cut) + "\u2026";
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A stable colour per tensor: the hue comes from a hash of the id, the
// saturation and lightness from a small band of soft, readable values, so
// neighbouring tensors rarely look alike and dark outlines stay visible.
std::string TensorColour(int tensor_id) {
  const uint64_t h = SplitMix64(static_cast<uint64_t>(tensor_id));
  const double hue = static_cast<double>(h & 0xFFFF) / 65536.0 * 360.0;
  const double sat = 0.42 + 0.08 * static_cast<double>((h >> 16) & 3);
  const double light = 0.60 + 0.05 * static_cast<double>((h >> 20) & 3);
  const double chroma = (1 - std::fabs(2 * light - 1)) * sat;
  const double hp = hue / 60.0;
  const double x = chroma * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(hp)) {
    case 0:
      r = chroma;
      g = x;
      break;
    case 1:
      r = x;
      g = chroma;
      break;
    case 2:
      g = chroma;
      b = x;
      break;
    case 3:
      g = x;
      b = chroma;
      break;
    case 4:
      r = x;
      b = chroma;
      break;
    default:
      r = chroma;
      b = x;
      break;
  }
  const double m = light - chroma / 2;
  auto channel = [m](double v) {
    return std::clamp(static_cast<int>(std::lround((v + m) * 255)), 0, 255);
  };
  return absl::StrFormat("#%02x%02x%02x", channel(r), channel(g), channel(b));
}

// 1, 2 or 5 times a power of ten, giving about `target` steps over `range`.
double NiceStep(double range, int target) {
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
  return nice * magnitude;
}

struct ByteUnit {
  double bytes;
  const char* name;
};

ByteUnit UnitFor(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30)) return {1073741824.0, "GiB"};
  if (bytes >= (int64_t{1} << 20)) return {1048576.0, "MiB"};
  if (bytes >= (int64_t{1} << 10)) return {1024.0, "KiB"};
  return {1.0, "B"};
}

std::string HumanBytes(int64_t bytes) {
  const ByteUnit unit = UnitFor(bytes);
  if (unit.bytes == 1.0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.3g %s", static_cast<double>(bytes) / unit.bytes,
                         unit.name);
}

std::string Px(double v) { return absl::StrFormat("%.2f", v); }

// The first non-empty tensor_name of each tensor, else "tensor <id>".
absl::flat_hash_map<int, std::string> TensorNames(const Workload& workload) {
  absl::flat_hash_map<int, std::string> names;
  for (const Buffer& buffer : workload.buffers()) {
    std::string& name = names[buffer.tensor_id()];
    if (name.empty()) name = buffer.tensor_name();
  }
  for (auto& [tensor_id, name] : names) {
    if (name.empty()) name = absl::StrCat("tensor ", tensor_id);
  }
  return names;
}

absl::Status DecisionError(int index, const char* field,
                           const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("decisions[", index, "].", field, ": ", what));
}

// A decision holds fast memory when it has an offset and an interval.
bool IsAllocation(const BufferDecision& decision) {
  return decision.has_offset() && decision.has_interval_start() &&
         decision.has_interval_end();
}

// An offset without an interval is accepted for NO_COPY only: an empty
// extension (rules §4.2) that says where the data stays and holds nothing new.
absl::Status CheckAllocation(const Workload& workload, int index,
                             const BufferDecision& decision) {
  const int last = workload.instructions_size() - 1;
  const int64_t size = workload.buffers(decision.buffer_id()).size();
  const bool has_interval =
      decision.has_interval_start() || decision.has_interval_end();
  if (!decision.has_offset()) {
    if (!has_interval) return absl::OkStatus();
    return DecisionError(
        index, "offset",
        "missing, but the decision has an allocation interval");
  }
  if (decision.offset() < 0) {
    return DecisionError(index, "offset",
                         absl::StrCat("must be >= 0, got ", decision.offset()));
  }
  if (decision.offset() > workload.memory_size() - size) {
    return DecisionError(
        index, "offset",
        absl::StrCat(decision.offset(), " + size ", size, " of buffer ",
                     decision.buffer_id(), " exceeds memory_size ",
                     workload.memory_size()));
  }
  if (!has_interval && decision.action() == NO_COPY) return absl::OkStatus();
  if (!decision.has_interval_start()) {
    return DecisionError(
        index, "interval_start",
        absl::StrCat("missing for a ", Action_Name(decision.action()),
                     " allocation at offset ", decision.offset()));
  }
  if (!decision.has_interval_end()) {
    return DecisionError(
        index, "interval_end",
        absl::StrCat("missing for a ", Action_Name(decision.action()),
                     " allocation at offset ", decision.offset()));
  }
  if (decision.interval_start() < 0 || decision.interval_start() > last) {
    return DecisionError(index, "interval_start",
                         absl::StrCat("must be in [0, ", last, "], got ",
                                      decision.interval_start()));
  }
  if (decision.interval_end() < decision.interval_start() ||
      decision.interval_end() > last) {
    return DecisionError(
        index, "interval_end",
        absl::StrCat("must be in [interval_start = ", decision.interval_start(),
                     ", ", last, "], got ", decision.interval_end()));
  }
  return absl::OkStatus();
}

// A copy interval with copy_end < copy_start is empty (a copy of no bytes)
// and is not drawn; a non-empty one must lie within the time steps.
absl::Status CheckCopy(const Workload& workload, int index,
                       const BufferDecision& decision) {
  if (decision.has_copy_start() != decision.has_copy_end()) {
    return DecisionError(
        index, decision.has_copy_start() ? "copy_end" : "copy_start",
        "missing: a copy interval needs both copy_start and copy_end");
  }
  if (!decision.has_copy_start() ||
      decision.copy_end() < decision.copy_start()) {
    return absl::OkStatus();
  }
  const int last = workload.instructions_size() - 1;
  if (decision.copy_start() < 0 || decision.copy_start() > last) {
    return DecisionError(index, "copy_start",
                         absl::StrCat("must be in [0, ", last, "], got ",
                                      decision.copy_start()));
  }
  if (decision.copy_end() > last) {
    return DecisionError(
        index, "copy_end",
        absl::StrCat("must be in [0, ", last, "], got ", decision.copy_end()));
  }
  return absl::OkStatus();
}

// Converts data coordinates (time steps, bytes) to pixels.
class Scale {
 public:
  Scale(const PlotArea& area, int num_steps, int64_t memory_size)
      : area_(area),
        px_per_step_(area.width / num_steps),
        px_per_byte_(area.height / static_cast<double>(memory_size)) {}

  double X(double t) const { return area_.left + t * px_per_step_; }
  double Y(double offset) const {
    return area_.top + area_.height - offset * px_per_byte_;
  }
  double Width(double steps) const { return steps * px_per_step_; }
  double Height(double bytes) const { return bytes * px_per_byte_; }
  const PlotArea& area() const { return area_; }

 private:
  PlotArea area_;
  double px_per_step_;
  double px_per_byte_;
};

// Everything one picture is drawn from, and the document being written.
struct Drawing {
  const Workload& workload;
  const Solution& solution;
  const LayoutSvgOptions& options;
  Scale scale;
  absl::flat_hash_map<int, std::string> names;  // by tensor_id
  std::string svg;
};

// Bytes x time steps held by each tensor's allocations.
std::map<int, double> AreaPerTensor(const Workload& workload,
                                    const Solution& solution) {
  std::map<int, double> area;
  for (const BufferDecision& decision : solution.decisions()) {
    if (!IsAllocation(decision)) continue;
    const Buffer& buffer = workload.buffers(decision.buffer_id());
    area[buffer.tensor_id()] +=
        static_cast<double>(buffer.size()) *
        (decision.interval_end() + 1 - decision.interval_start());
  }
  return area;
}

double PlaneArea(const Workload& workload) {
  return static_cast<double>(workload.memory_size()) *
         workload.instructions_size();
}

void AppendHeader(Drawing& d) {
  const LayoutSvgOptions& options = d.options;
  absl::StrAppendFormat(
      &d.svg,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, "
      "sans-serif\" font-size=\"11\">\n"
      "<rect class=\"background\" width=\"%d\" height=\"%d\" "
      "fill=\"#ffffff\"/>\n",
      options.width, options.height, options.width, options.height,
      options.width, options.height);
  int num_allocations = 0;
  for (const BufferDecision& decision : d.solution.decisions()) {
    num_allocations += IsAllocation(decision) ? 1 : 0;
  }
  double occupied = 0;
  for (const auto& [tensor_id, bytes_steps] :
       AreaPerTensor(d.workload, d.solution)) {
    occupied += bytes_steps;
  }
  const std::string& name = d.workload.name();
  const std::string& solver = d.solution.solver().name();
  absl::StrAppendFormat(
      &d.svg,
      "<text class=\"title\" x=\"%s\" y=\"24\" font-size=\"16\" "
      "font-weight=\"bold\" fill=\"#222\">%s \u2014 %s \u2014 normalised "
      "return %.4f</text>\n",
      Px(kMarginLeft), XmlEscape(name.empty() ? "(unnamed workload)" : name),
      XmlEscape(solver.empty() ? "(unnamed solver)" : solver),
      d.solution.normalised_return());
  absl::StrAppendFormat(
      &d.svg,
      "<text class=\"subtitle\" x=\"%s\" y=\"43\" fill=\"#555\">%d time steps "
      "\u00b7 fast memory %s \u00b7 %d allocations for %d buffers \u00b7 "
      "%.1f%% of time \u00d7 memory occupied</text>\n",
      Px(kMarginLeft), d.workload.instructions_size(),
      XmlEscape(HumanBytes(d.workload.memory_size())), num_allocations,
      d.workload.buffers_size(), 100 * occupied / PlaneArea(d.workload));
}

// Horizontal grid lines, ticks and labels at round offsets in the unit that
// suits memory_size (B, KiB, MiB or GiB).
void AppendOffsetAxis(Drawing& d) {
  const PlotArea& area = d.scale.area();
  const ByteUnit unit = UnitFor(d.workload.memory_size());
  const double range =
      static_cast<double>(d.workload.memory_size()) / unit.bytes;
  const double step =
      NiceStep(range, std::max(2, static_cast<int>(area.height / 45)));
  const int decimals =
      step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  d.svg += "<g class=\"offset-axis\">\n";
  for (int k = 0; k * step <= range * (1 + 1e-9); ++k) {
    const double y = d.scale.Y(k * step * unit.bytes);
    absl::StrAppendFormat(
        &d.svg,
        "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#dde1e6\" "
        "stroke-width=\"0.6\"/>\n"
        "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#333\"/>\n"
        "<text x=\"%s\" y=\"%s\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
        Px(area.left), Px(y), Px(area.left + area.width), Px(y),
        Px(area.left - 5), Px(y), Px(area.left), Px(y), Px(area.left - 8),
        Px(y + 4),
        k == 0 ? std::string("0")
               : absl::StrFormat("%.*f %s", decimals, k * step, unit.name));
  }
  const double mid = area.top + area.height / 2;
  absl::StrAppendFormat(
      &d.svg,
      "<text x=\"16\" y=\"%s\" text-anchor=\"middle\" fill=\"#333\" "
      "transform=\"rotate(-90 16 %s)\">fast-memory offset</text>\n</g>\n",
      Px(mid), Px(mid));
}

// Vertical grid lines at round time steps; ticks and labels under the copy
// strip.
void AppendTimeAxis(Drawing& d) {
  const PlotArea& area = d.scale.area();
  const int num_steps = d.workload.instructions_size();
  const int target = std::max(2, static_cast<int>(area.width / 70));
  const int step =
      std::max(1, static_cast<int>(std::lround(NiceStep(num_steps, target))));
  const double axis = area.top + area.height + kStripGap + kStripHeight;
  d.svg += "<g class=\"time-axis\">\n";
  for (int t = 0; t <= num_steps; t += step) {
    const double x = d.scale.X(t);
    absl::StrAppendFormat(
        &d.svg,
        "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#dde1e6\" "
        "stroke-width=\"0.6\"/>\n"
        "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#333\"/>\n"
        "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" "
        "fill=\"#333\">%d</text>\n",
        Px(x), Px(area.top), Px(x), Px(area.top + area.height), Px(x), Px(axis),
        Px(x), Px(axis + 5), Px(x), Px(axis + 17), t);
  }
  absl::StrAppendFormat(
      &d.svg,
      "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" fill=\"#333\">logical "
      "time (instruction index)</text>\n</g>\n",
      Px(area.left + area.width / 2), Px(axis + 34));
}

std::string AllocationTooltip(const Drawing& d,
                              const BufferDecision& decision) {
  const Buffer& buffer = d.workload.buffers(decision.buffer_id());
  return absl::StrFormat(
      "%s (tensor %d): buffer %d, %s at t=%d, %s; bytes [%d, %d) (%s); "
      "time [%d, %d]",
      d.names.at(buffer.tensor_id()), buffer.tensor_id(), buffer.id(),
      buffer.is_output() ? "output" : "operand", buffer.target_time(),
      Action_Name(decision.action()), decision.offset(),
      decision.offset() + buffer.size(), HumanBytes(buffer.size()),
      decision.interval_start(), decision.interval_end());
}

void AppendAllocations(Drawing& d) {
  d.svg +=
      "<g class=\"allocations\" stroke=\"#1f2328\" stroke-opacity=\"0.55\" "
      "stroke-width=\"0.6\">\n";
  for (int i = 0; i < d.solution.decisions_size(); ++i) {
    const BufferDecision& decision = d.solution.decisions(i);
    if (!IsAllocation(decision)) continue;
    const Buffer& buffer = d.workload.buffers(decision.buffer_id());
    const int steps = decision.interval_end() + 1 - decision.interval_start();
    const auto top = static_cast<double>(decision.offset() + buffer.size());
    absl::StrAppendFormat(
        &d.svg,
        "<rect class=\"alloc\" data-decision=\"%d\" data-buffer=\"%d\" "
        "data-tensor=\"%d\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
        "fill=\"%s\"><title>%s</title></rect>\n",
        i, buffer.id(), buffer.tensor_id(),
        Px(d.scale.X(decision.interval_start())), Px(d.scale.Y(top)),
        Px(d.scale.Width(steps)),
        Px(d.scale.Height(static_cast<double>(buffer.size()))),
        TensorColour(buffer.tensor_id()),
        XmlEscape(AllocationTooltip(d, decision)));
  }
  d.svg += "</g>\n";
}

// Copy intervals in a strip under the plot, coloured by tensor: where the
// DMA engine is busy prefetching and writing back.
void AppendCopyStrip(Drawing& d) {
  const PlotArea& area = d.scale.area();
  const double top = area.top + area.height + kStripGap;
  absl::StrAppendFormat(
      &d.svg,
      "<g class=\"copy-strip\">\n<rect x=\"%s\" y=\"%s\" width=\"%s\" "
      "height=\"%s\" fill=\"#eef0f3\"/>\n<text x=\"%s\" y=\"%s\" "
      "text-anchor=\"end\" fill=\"#666\" font-size=\"9\">copies</text>\n",
      Px(area.left), Px(top), Px(area.width), Px(kStripHeight),
      Px(area.left - 8), Px(top + 8));
  for (int i = 0; i < d.solution.decisions_size(); ++i) {
    const BufferDecision& decision = d.solution.decisions(i);
    if (!decision.has_copy_start() ||
        decision.copy_end() < decision.copy_start()) {
      continue;
    }
    const Buffer& buffer = d.workload.buffers(decision.buffer_id());
    absl::StrAppendFormat(
        &d.svg,
        "<rect class=\"copy\" data-decision=\"%d\" x=\"%s\" y=\"%s\" "
        "width=\"%s\" height=\"%s\" fill=\"%s\" fill-opacity=\"0.8\" "
        "stroke=\"#1f2328\" stroke-opacity=\"0.5\" stroke-width=\"0.4\">"
        "<title>%s of buffer %d, time [%d, %d]</title></rect>\n",
        i, Px(d.scale.X(decision.copy_start())), Px(top),
        Px(d.scale.Width(decision.copy_end() + 1 - decision.copy_start())),
        Px(kStripHeight), TensorColour(buffer.tensor_id()),
        buffer.is_output() ? "write-back" : "prefetch", buffer.id(),
        decision.copy_start(), decision.copy_end());
  }
  d.svg += "</g>\n";
}

// The tensors holding the most bytes x steps, largest first (ties by id),
// with their share of the whole time x memory plane.
void AppendLegend(Drawing& d) {
  if (d.options.legend_entries <= 0) return;
  const std::map<int, double> area = AreaPerTensor(d.workload, d.solution);
  std::vector<std::pair<int, double>> ranked(area.begin(), area.end());
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  const PlotArea& plot = d.scale.area();
  const int fit =
      std::max(1, static_cast<int>((plot.height - 24) / kLegendRow));
  const int shown = std::min(
      {d.options.legend_entries, fit, static_cast<int>(ranked.size())});
  const double x = plot.left + plot.width + 20;
  absl::StrAppendFormat(
      &d.svg,
      "<g class=\"legend\">\n<text x=\"%s\" y=\"%s\" font-weight=\"bold\" "
      "fill=\"#222\">largest tensors (bytes \u00d7 steps)</text>\n",
      Px(x), Px(plot.top + 10));
  if (shown == 0) {
    absl::StrAppendFormat(
        &d.svg, "<text x=\"%s\" y=\"%s\" fill=\"#666\">no allocations</text>\n",
        Px(x), Px(plot.top + 10 + kLegendRow));
  }
  for (int i = 0; i < shown; ++i) {
    const auto [tensor_id, bytes_steps] = ranked[i];
    const double y = plot.top + 10 + (i + 1) * kLegendRow;
    absl::StrAppendFormat(
        &d.svg,
        "<rect class=\"legend\" data-tensor=\"%d\" x=\"%s\" y=\"%s\" "
        "width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#1f2328\" "
        "stroke-opacity=\"0.55\" stroke-width=\"0.6\"/>\n"
        "<text x=\"%s\" y=\"%s\" fill=\"#222\">%s</text>\n"
        "<text x=\"%s\" y=\"%s\" text-anchor=\"end\" "
        "fill=\"#666\">%.1f%%</text>\n",
        tensor_id, Px(x), Px(y - 10), TensorColour(tensor_id), Px(x + 18),
        Px(y), XmlEscape(Shorten(d.names.at(tensor_id), kLegendNameBytes)),
        Px(d.options.width - kMarginRight), Px(y),
        100 * bytes_steps / PlaneArea(d.workload));
  }
  d.svg += "</g>\n";
}

}  // namespace

absl::Status CheckLayoutOptions(const LayoutSvgOptions& options) {
  const int min_width =
      static_cast<int>(kMarginLeft + RightMargin(options) + kMinPlotWidth);
  const int min_height =
      static_cast<int>(kMarginTop + kMarginBottom + kMinPlotHeight);
  if (options.width < min_width || options.width > kMaxPixels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "width: must be in [", min_width, ", ", kMaxPixels, "] pixels",
        options.legend_entries > 0 ? " with a legend" : "", ", got ",
        options.width));
  }
  if (options.height < min_height || options.height > kMaxPixels) {
    return absl::InvalidArgumentError(
        absl::StrCat("height: must be in [", min_height, ", ", kMaxPixels,
                     "] pixels, got ", options.height));
  }
  if (options.legend_entries < 0 ||
      options.legend_entries > kMaxLegendEntries) {
    return absl::InvalidArgumentError(absl::StrCat("legend: must be in [0, ",
                                                   kMaxLegendEntries, "], got ",
                                                   options.legend_entries));
  }
  return absl::OkStatus();
}

PlotArea LayoutPlotArea(const LayoutSvgOptions& options) {
  PlotArea area;
  area.left = kMarginLeft;
  area.top = kMarginTop;
  area.width =
      std::max(0.0, options.width - kMarginLeft - RightMargin(options));
  area.height = std::max(0.0, options.height - kMarginTop - kMarginBottom);
  return area;
}

absl::Status CheckLayoutInputs(const Workload& workload,
                               const Solution& solution) {
  if (workload.memory_size() <= 0 || workload.instructions_size() == 0) {
    return absl::InvalidArgumentError(
        "workload: needs memory_size > 0 and at least one instruction");
  }
  if (!solution.workload_name().empty() && !workload.name().empty() &&
      solution.workload_name() != workload.name()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload_name: the solution is for '", solution.workload_name(),
        "', not for workload '", workload.name(), "'"));
  }
  absl::flat_hash_map<int, int> decided_by;
  for (int i = 0; i < solution.decisions_size(); ++i) {
    const BufferDecision& decision = solution.decisions(i);
    const int id = decision.buffer_id();
    if (id < 0 || id >= workload.buffers_size()) {
      return DecisionError(
          i, "buffer_id",
          absl::StrCat("no buffer with id ", id, " (the workload has ",
                       workload.buffers_size(), " buffers)"));
    }
    if (auto [it, inserted] = decided_by.emplace(id, i); !inserted) {
      return DecisionError(
          i, "buffer_id",
          absl::StrCat("buffer ", id, " already decided by decisions[",
                       it->second, "]"));
    }
    RETURN_IF_ERROR(CheckAllocation(workload, i, decision));
    RETURN_IF_ERROR(CheckCopy(workload, i, decision));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderLayoutSvg(const Workload& workload,
                                            const Solution& solution,
                                            const LayoutSvgOptions& options) {
  RETURN_IF_ERROR(CheckLayoutOptions(options));
  RETURN_IF_ERROR(CheckLayoutInputs(workload, solution));
  Drawing d{workload,
            solution,
            options,
            Scale(LayoutPlotArea(options), workload.instructions_size(),
                  workload.memory_size()),
            TensorNames(workload),
            ""};
  const PlotArea& area = d.scale.area();
  const std::string frame = absl::StrFormat(
      "x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"", Px(area.left),
      Px(area.top), Px(area.width), Px(area.height));
  AppendHeader(d);
  absl::StrAppendFormat(&d.svg, "<rect class=\"plot\" %s fill=\"#f5f6f8\"/>\n",
                        frame);
  // Grid lines first, so the allocations cover them.
  AppendOffsetAxis(d);
  AppendTimeAxis(d);
  AppendAllocations(d);
  absl::StrAppendFormat(
      &d.svg, "<rect class=\"frame\" %s fill=\"none\" stroke=\"#333\"/>\n",
      frame);
  AppendCopyStrip(d);
  AppendLegend(d);
  d.svg += "</svg>\n";
  return std::move(d.svg);
}

}  // namespace mmapzero
