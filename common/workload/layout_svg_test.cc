#include "common/workload/layout_svg.h"

#include <map>
#include <regex>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Four steps, 1000 bytes of fast memory.
//   buffer 0: 200 bytes of tensor 0 "a<b&c>", read at 1
//   buffer 1: 300 bytes of tensor 1 (no name), read at 3
//   buffer 2: 100 bytes of tensor 0, read at 2
Workload SmallWorkload() {
  Workload workload;
  workload.set_name("small \"w\"");
  workload.set_memory_size(1000);
  for (int t = 0; t < 4; ++t) workload.add_instructions()->set_supply_us(1);
  const struct {
    int64_t size;
    int target_time;
    int tensor_id;
    const char* name;
  } buffers[] = {{200, 1, 0, "a<b&c>"}, {300, 3, 1, ""}, {100, 2, 0, "a<b&c>"}};
  for (const auto& spec : buffers) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(workload.buffers_size() - 1);
    buffer->set_size(spec.size);
    buffer->set_target_time(spec.target_time);
    buffer->set_tensor_id(spec.tensor_id);
    buffer->set_tensor_name(spec.name);
    buffer->mutable_live_range()->set_start(0);
    buffer->mutable_live_range()->set_end(3);
  }
  return workload;
}

BufferDecision* AddDecision(Solution& solution, int buffer_id, Action action) {
  BufferDecision* decision = solution.add_decisions();
  decision->set_buffer_id(buffer_id);
  decision->set_action(action);
  return decision;
}

void Allocate(BufferDecision* decision, int64_t offset, int start, int end) {
  decision->set_offset(offset);
  decision->set_interval_start(start);
  decision->set_interval_end(end);
}

// Buffer 0 at offset 0 over [0, 1] (prefetched during step 0), buffer 1 at
// offset 500 over [1, 3], buffer 2 dropped.
Solution SmallSolution() {
  Solution solution;
  solution.set_workload_name("small \"w\"");
  solution.mutable_solver()->set_name("hand & made");
  solution.set_normalised_return(0.25);
  BufferDecision* copy = AddDecision(solution, 0, COPY);
  Allocate(copy, 0, 0, 1);
  copy->set_copy_start(0);
  copy->set_copy_end(0);
  Allocate(AddDecision(solution, 1, NO_COPY), 500, 1, 3);
  AddDecision(solution, 2, DROP);
  return solution;
}

struct Box {
  int buffer;
  double x, y, width, height;
};

// The <rect class="alloc"> elements, by decision index.
std::map<int, Box> Allocations(const std::string& svg) {
  static const std::regex kRect(
      "<rect class=\"alloc\" data-decision=\"(\\d+)\" data-buffer=\"(\\d+)\" "
      "data-tensor=\"\\d+\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" "
      "width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  std::map<int, Box> boxes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kRect);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    boxes[std::stoi(m[1])] = {std::stoi(m[2]), std::stod(m[3]), std::stod(m[4]),
                              std::stod(m[5]), std::stod(m[6])};
  }
  return boxes;
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string Render(const Workload& workload, const Solution& solution,
                   const LayoutSvgOptions& options = {}) {
  absl::StatusOr<std::string> svg =
      RenderLayoutSvg(workload, solution, options);
  EXPECT_TRUE(svg.ok()) << svg.status();
  return svg.ok() ? *svg : "";
}

TEST(LayoutSvgTest, DrawsOneRectanglePerAllocationAtItsTimeAndOffset) {
  const LayoutSvgOptions options;
  const PlotArea area = LayoutPlotArea(options);
  const double step = area.width / 4;      // 4 time steps
  const double byte = area.height / 1000;  // 1000 bytes
  const double bottom = area.top + area.height;

  const std::map<int, Box> boxes =
      Allocations(Render(SmallWorkload(), SmallSolution(), options));
  ASSERT_EQ(boxes.size(), 2u);  // the dropped buffer has none

  const Box& first = boxes.at(0);  // time [0, 2), bytes [0, 200)
  EXPECT_EQ(first.buffer, 0);
  EXPECT_NEAR(first.x, area.left, 0.01);
  EXPECT_NEAR(first.width, 2 * step, 0.01);
  EXPECT_NEAR(first.y, bottom - 200 * byte, 0.01);
  EXPECT_NEAR(first.height, 200 * byte, 0.01);

  const Box& second = boxes.at(1);  // time [1, 4), bytes [500, 800)
  EXPECT_EQ(second.buffer, 1);
  EXPECT_NEAR(second.x, area.left + step, 0.01);
  EXPECT_NEAR(second.width, 3 * step, 0.01);
  EXPECT_NEAR(second.y, bottom - 800 * byte, 0.01);
  EXPECT_NEAR(second.height, 300 * byte, 0.01);
}

TEST(LayoutSvgTest, DrawsCopyIntervalsInTheStrip) {
  const std::string svg = Render(SmallWorkload(), SmallSolution());
  EXPECT_EQ(Count(svg, "<rect class=\"copy\""), 1);
  EXPECT_THAT(svg, HasSubstr("prefetch of buffer 0, time [0, 0]"));
}

TEST(LayoutSvgTest, TitleNamesWorkloadSolverAndNormalisedReturn) {
  const std::string svg = Render(SmallWorkload(), SmallSolution());
  EXPECT_THAT(svg, HasSubstr("small &quot;w&quot;"));
  EXPECT_THAT(svg, HasSubstr("hand &amp; made"));
  EXPECT_THAT(svg, HasSubstr("normalised return 0.2500"));
}

TEST(LayoutSvgTest, LegendListsLargestTensorsFirst) {
  const std::string svg = Render(SmallWorkload(), SmallSolution());
  // Tensor 1 holds 300 bytes x 3 steps, tensor 0 200 x 2.
  EXPECT_EQ(Count(svg, "<rect class=\"legend\""), 2);
  const size_t unnamed = svg.find(">tensor 1</text>");
  const size_t named = svg.find(">a&lt;b&amp;c&gt;</text>");
  ASSERT_NE(unnamed, std::string::npos);
  ASSERT_NE(named, std::string::npos);
  EXPECT_LT(unnamed, named);
}

TEST(LayoutSvgTest, LegendShowsAtMostTheRequestedEntries) {
  LayoutSvgOptions options;
  options.legend_entries = 1;
  const std::string one = Render(SmallWorkload(), SmallSolution(), options);
  EXPECT_EQ(Count(one, "<rect class=\"legend\""), 1);
  EXPECT_THAT(one, HasSubstr(">tensor 1</text>"));
  options.legend_entries = 0;
  EXPECT_EQ(Count(Render(SmallWorkload(), SmallSolution(), options),
                  "class=\"legend\""),
            0);
}

TEST(LayoutSvgTest, EscapesXmlSpecialCharactersEverywhere) {
  Workload workload = SmallWorkload();
  workload.mutable_buffers(0)->set_tensor_name("<x y='1'>&\"\x01");
  const std::string svg = Render(workload, SmallSolution());
  EXPECT_THAT(svg, Not(HasSubstr("<x y")));
  EXPECT_THAT(svg, HasSubstr("&lt;x y=&apos;1&apos;&gt;&amp;&quot;?"));
  // Every '&' starts one of the five entities.
  static const std::regex kBareAmpersand("&(?!amp;|lt;|gt;|quot;|apos;)");
  EXPECT_FALSE(std::regex_search(svg, kBareAmpersand));
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
}

TEST(LayoutSvgTest, DrawsAnEmptyLayout) {
  Solution solution;
  for (int id = 0; id < 3; ++id) AddDecision(solution, id, DROP);
  const std::string svg = Render(SmallWorkload(), solution);
  EXPECT_TRUE(Allocations(svg).empty());
  EXPECT_THAT(svg, HasSubstr("no allocations"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

absl::Status RenderError(const Solution& solution,
                         const LayoutSvgOptions& options = {}) {
  return RenderLayoutSvg(SmallWorkload(), solution, options).status();
}

TEST(LayoutSvgTest, RejectsUnknownOrRepeatedBufferIds) {
  Solution solution = SmallSolution();
  solution.mutable_decisions(1)->set_buffer_id(9);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[1].buffer_id: no buffer with id 9"));
  solution = SmallSolution();
  solution.mutable_decisions(2)->set_buffer_id(0);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[2].buffer_id: buffer 0 already decided by "
                        "decisions[0]"));
}

TEST(LayoutSvgTest, RejectsAllocationsOutsideTheMemory) {
  Solution solution = SmallSolution();
  solution.mutable_decisions(0)->set_offset(900);
  const absl::Status status = RenderError(solution);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("decisions[0].offset: 900 + size 200 of buffer 0 "
                        "exceeds memory_size 1000"));
  solution.mutable_decisions(0)->set_offset(-8);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[0].offset: must be >= 0, got -8"));
}

TEST(LayoutSvgTest, RejectsIntervalsOutsideTheTimeSteps) {
  Solution solution = SmallSolution();
  solution.mutable_decisions(1)->set_interval_end(4);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[1].interval_end: must be in "
                        "[interval_start = 1, 3], got 4"));
  solution = SmallSolution();
  solution.mutable_decisions(1)->set_interval_start(-1);
  EXPECT_THAT(
      RenderError(solution).message(),
      HasSubstr("decisions[1].interval_start: must be in [0, 3], got -1"));
  solution = SmallSolution();
  solution.mutable_decisions(0)->set_copy_start(-2);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[0].copy_start: must be in [0, 3], got -2"));
}

TEST(LayoutSvgTest, RejectsAllocationWithoutIntervalAndIntervalWithoutOffset) {
  Solution solution = SmallSolution();
  solution.mutable_decisions(1)->clear_interval_end();
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[1].interval_end: missing"));
  solution = SmallSolution();
  solution.mutable_decisions(1)->clear_offset();
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[1].offset: missing"));
}

TEST(LayoutSvgTest, EmptyNoCopyExtensionKeepsItsOffsetAndDrawsNothing) {
  Solution solution = SmallSolution();
  solution.mutable_decisions(1)->clear_interval_start();
  solution.mutable_decisions(1)->clear_interval_end();
  const std::map<int, Box> boxes =
      Allocations(Render(SmallWorkload(), solution));
  EXPECT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes.count(1), 0u);
  // The same without an interval is an error for a COPY.
  solution.mutable_decisions(1)->set_action(COPY);
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("decisions[1].interval_start: missing for a COPY "
                        "allocation at offset 500"));
}

TEST(LayoutSvgTest, RejectsSolutionOfAnotherWorkload) {
  Solution solution = SmallSolution();
  solution.set_workload_name("other");
  EXPECT_THAT(RenderError(solution).message(),
              HasSubstr("workload_name: the solution is for 'other'"));
}

TEST(LayoutSvgTest, RejectsPicturesTooSmallToDraw) {
  LayoutSvgOptions options;
  options.width = 50;
  EXPECT_THAT(RenderError(SmallSolution(), options).message(),
              HasSubstr("width: must be in ["));
  options = LayoutSvgOptions();
  options.legend_entries = -1;
  EXPECT_THAT(RenderError(SmallSolution(), options).message(),
              HasSubstr("legend: must be in [0, "));
}

}  // namespace
}  // namespace mmapzero
