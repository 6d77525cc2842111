// `mmapctl watch JOB [--for 25h] [--json]`: follows a job (WatchJob) and
// prints a line per update until the job is final: time running, state,
// learner step, games, moves per second (between updates), best normalised
// return, a '+' when it just improved. At most one line a second, except
// when the state or the best changes, and always the last. --json prints
// every JobProgress as one line of JSON instead. Exits non-zero when the
// job failed, or was still not final after --for.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/status_macros.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "watch JOB [--for 25h] [--coordinator HOST:PORT] [--json]";
constexpr absl::Duration kDefaultFor = absl::Hours(25);

// Moves per second from one update to the next, over at least a second.
class MoveRate {
 public:
  double Update(int64_t moves, absl::Time now) {
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

 private:
  absl::Time last_time_ = absl::InfinitePast();
  int64_t last_moves_ = 0;
  double rate_ = 0;
};

std::string Running(const v1::JobStatus& job, absl::Time now) {
  if (job.started_unix_ms() == 0) return "-";
  const int64_t end = job.finished_unix_ms() > 0 ? job.finished_unix_ms()
                                                 : absl::ToUnixMillis(now);
  return absl::StrFormat("%.1f s", (end - job.started_unix_ms()) / 1000.0);
}

std::string Line(const v1::JobProgress& progress, double moves_per_second,
                 absl::Time now) {
  const v1::JobStatus& job = progress.job();
  std::string line = absl::StrFormat(
      "%10s  %-9s  step %-7d  games %-7d  moves/s %-8.1f  best %.4f%s",
      Running(job, now), StateName(job.state()), job.learner_step(),
      job.games(), moves_per_second, job.best_normalised_return(),
      progress.best_improved() ? " +" : "");
  if (!job.error().empty()) absl::StrAppend(&line, "  (", job.error(), ")");
  return line;
}

}  // namespace

absl::Status RunWatch(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"for"}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  absl::Duration max_wait = kDefaultFor;
  if (line.Has("for")) {
    ASSIGN_OR_RETURN(max_wait,
                     ParseDurationFlag("for", line.GetString("for", "")));
  }
  const std::string job_id = line.positional()[0];
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  const bool json = line.Has("json");
  MoveRate rate;
  absl::Time last_line = absl::InfinitePast();
  v1::JobState last_state = v1::JOB_STATE_UNSPECIFIED;
  v1::JobStatus last;
  RETURN_IF_ERROR(
      client->Watch(job_id, max_wait, [&](const v1::JobProgress& progress) {
        last = progress.job();
        if (json) {
          std::cout << CompactJson(progress) << std::endl;
          return;
        }
        const absl::Time now = absl::Now();
        const double moves_per_second =
            rate.Update(progress.job().moves(), now);
        const bool significant = progress.best_improved() ||
                                 progress.job().state() != last_state ||
                                 IsFinal(progress.job().state());
        last_state = progress.job().state();
        if (!significant && now - last_line < absl::Seconds(1)) return;
        last_line = now;
        std::cout << Line(progress, moves_per_second, now) << std::endl;
      }));
  if (last.state() == v1::JOB_STATE_FAILED) {
    return absl::AbortedError(
        absl::StrCat("job ", job_id, " failed: ", last.error()));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
