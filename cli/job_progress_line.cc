#include "cli/job_progress_line.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/job_client.h"
#include "cli/latency_report.h"
#include "common/rpc/enum_names.h"

namespace mmapzero::cli {
namespace {

std::string Running(const v1::JobStatus& job, absl::Time now) {
  if (job.started_unix_ms() == 0) return "-";
  const int64_t end = job.finished_unix_ms() > 0 ? job.finished_unix_ms()
                                                 : absl::ToUnixMillis(now);
  return absl::StrFormat("%.1f s", (end - job.started_unix_ms()) / 1000.0);
}

}  // namespace

double MoveRate::Update(int64_t moves, absl::Time now) {
  if (last_time_ == absl::InfinitePast()) {
    last_time_ = now;
    last_moves_ = moves;
    return 0;
  }
  const double seconds = absl::ToDoubleSeconds(now - last_time_);
  if (seconds >= 1) {
    rate_ = static_cast<double>(moves - last_moves_) / seconds;
    last_time_ = now;
    last_moves_ = moves;
  }
  return rate_;
}

std::string JobProgressLine(const v1::JobProgress& progress,
                            double moves_per_second, absl::Time now) {
  const v1::JobStatus& job = progress.job();
  std::string line = absl::StrFormat(
      "%10s  %-9s  step %-7d  games %-7d  moves/s %-8.1f  best %s (return "
      "%.4f)%s",
      Running(job, now), rpc::JobStateName(job.state()), job.learner_step(),
      job.games(), moves_per_second, JobLatencyText(job),
      job.best_normalised_return(), progress.best_improved() ? " +" : "");
  if (!job.error().empty()) absl::StrAppend(&line, "  (", job.error(), ")");
  return line;
}

std::string JobProgressPrinter::Next(const v1::JobProgress& progress,
                                     absl::Time now) {
  const double moves_per_second = rate_.Update(progress.job().moves(), now);
  const bool significant = progress.best_improved() ||
                           progress.job().state() != last_state_ ||
                           rpc::IsFinalJobState(progress.job().state());
  last_state_ = progress.job().state();
  if (!significant && now - last_line_ < absl::Seconds(1)) return "";
  last_line_ = now;
  return JobProgressLine(progress, moves_per_second, now);
}

}  // namespace mmapzero::cli
