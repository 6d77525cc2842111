// Draws a solution's fast-memory layout as an SVG picture, as in Figure 1 of
// the paper: logical time on the x axis (0..T), fast-memory offset on the y
// axis (0..memory_size, 0 at the bottom), one rectangle per allocation
// coloured by tensor, copy intervals as a strip under the time axis, and a
// legend of the tensors that take the most room (bytes x time steps).
//
// An allocation is a BufferDecision with an offset and an interval: it
// covers the time steps [interval_start, interval_end + 1) and the bytes
// [offset, offset + size), size taken from the workload's buffer. A NO_COPY
// decision with an offset and no interval (an empty extension) draws nothing.
// The picture checks only what it needs to draw (ids, ranges); whether the
// layout is legal is the validator's question (common/validate/).
#ifndef MMAPZERO_COMMON_WORKLOAD_LAYOUT_SVG_H_
#define MMAPZERO_COMMON_WORKLOAD_LAYOUT_SVG_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero {

struct LayoutSvgOptions {
  int width = 1200;         // pixels, whole picture
  int height = 700;         // pixels, whole picture
  int legend_entries = 10;  // largest tensors listed; 0 = no legend
};

// The rectangle, in pixels, that the time x offset plane is drawn into.
// Time t lies at x = left + t * width / T; offset o at
// y = top + height - o * height / memory_size.
struct PlotArea {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;
};

// Where RenderLayoutSvg puts the plot for these options; the margins hold
// the title, the axes, the copy strip and (when legend_entries > 0) the
// legend.
PlotArea LayoutPlotArea(const LayoutSvgOptions& options);

// OK, or InvalidArgument naming the option ("width: ...") when the picture
// is too small to hold the plot or absurdly large.
absl::Status CheckLayoutOptions(const LayoutSvgOptions& options);

// OK, or InvalidArgument naming the first bad decision, field and value
// ("decisions[4].offset: ..."): an unknown or repeated buffer_id, an
// allocation outside [0, memory_size) or outside the time steps [0, T), a
// COPY offset without an interval, an interval without an offset, a copy
// interval outside [0, T); or a solution made for another workload.
absl::Status CheckLayoutInputs(const Workload& workload,
                               const Solution& solution);

// The SVG document (UTF-8, standalone), or the error of CheckLayoutOptions
// or CheckLayoutInputs.
// Allocations are <rect class="alloc"> elements carrying data-decision,
// data-buffer and data-tensor attributes and a <title> tooltip; copy
// intervals are <rect class="copy">; legend swatches <rect class="legend">.
absl::StatusOr<std::string> RenderLayoutSvg(const Workload& workload,
                                            const Solution& solution,
                                            const LayoutSvgOptions& options);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_LAYOUT_SVG_H_
