#include "actor/actor_job.h"

#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/trajectory_proto.h"
#include "common/base/status_macros.h"
#include "common/game/program.h"
#include "common/model/networks.h"
#include "common/service/log_line.h"
#include "common/solvers/search_budget.h"
#include "worker/networks/job_networks.h"

namespace mmapzero::actor {
namespace {

// Serialised bytes of one trajectory segment at most: a few per insert
// batch, and a full outbox queue of them stays in the low gigabytes.
constexpr int64_t kSegmentBytes = int64_t{8} << 20;
// Positions of a segment at most: with the paper preset on CPU cores a
// move of all 64 games takes seconds, and the learner should not wait for
// hundreds of them.
constexpr int32_t kSegmentPositions = 64;

}  // namespace

absl::StatusOr<std::shared_ptr<ActorJob>> ActorJob::Start(
    const v1::Assignment& assignment, const ActorJobOptions& options) {
  const std::string& job_id = assignment.job_id();
  if (options.session == nullptr) {
    return absl::InvalidArgumentError("actor job: no worker session");
  }
  const MuZeroConfig& config = assignment.config();
  absl::StatusOr<worker::JobNetworks> networks =
      worker::CreateJobNetworks(job_id, config, options.parameter_poll);
  if (!networks.ok()) return networks.status();
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(assignment.workload());
  if (!program.ok()) return worker::InJob(job_id, program.status());

  std::shared_ptr<ActorJob> job(
      new ActorJob(job_id, options, std::move(networks->poller)));
  training::SelfPlay::Options play{
      .config = config,
      // The worker id (unique per registration) keeps identical actor pods
      // with the same --seed from playing the same games.
      .seed = solvers::MixSeed(
          solvers::MixSeed(options.seed, std::hash<std::string>()(job_id),
                           0x5e1f),
          std::hash<std::string>()(options.session != nullptr
                                       ? options.session->worker_id()
                                       : std::string()),
          0xac70),
      .game_options = {},
      .sink =
          [raw = job.get()](const game::MMapGame& game,
                            agent::Trajectory trajectory) {
            raw->OnGame(game, std::move(trajectory));
          },
      // The job's best when the job was assigned (the heuristic's seed).
      .start = assignment.has_best() && assignment.best().decisions_size() > 0
                   ? std::optional<Solution>(assignment.best())
                   : std::nullopt,
      // Long games (the paper preset's 16,500-buffer programs: 17 KB a
      // step) reach replay in pieces well under its message limit.
      .max_segment_steps = training::SelfPlay::SegmentStepsFor(
          config, kSegmentBytes, kSegmentPositions),
      .solution_sink =
          [raw = job.get()](const game::MMapGame& game) {
            raw->OfferSolution(game);
          }};
  absl::StatusOr<std::unique_ptr<training::SelfPlay>> self_play =
      training::SelfPlay::Create(*program, std::move(networks->network),
                                 std::move(play));
  if (!self_play.ok()) return worker::InJob(job_id, self_play.status());
  job->self_play_ = *std::move(self_play);
  if (options.metrics != nullptr) {
    job->self_play_->set_inference_observer(
        [metrics = options.metrics](int batch, absl::Duration latency) {
          metrics->ObserveInference(batch, latency);
        });
  }
  job->Update(assignment);
  job->Publish();
  job->thread_ = std::jthread([raw = job.get()](std::stop_token stop) {
    raw->RunGuarded(raw->job_id_, [&] { raw->Play(stop); });
  });
  return job;
}

ActorJob::ActorJob(std::string job_id, const ActorJobOptions& options,
                   std::unique_ptr<worker::ParameterPoller> poller)
    : job_id_(std::move(job_id)),
      options_(options),
      poller_(std::move(poller)),
      outbox_(worker::JobOutboxOptions{
          .job_id = job_id_,
          .worker_id = options.session->worker_id(),
          .batch_size = options.trajectory_batch,
          .max_queued = options.max_queued_trajectories,
          .rpc_deadline = options.rpc_deadline,
          .report = [session = options.session, job = job_id_](
                        const Solution& solution, int64_t version) {
            return session->ReportSolution(job, solution, version);
          },
          .lease_ticket = [session = options.session,
                           job = job_id_] { return session->LeaseTicket(job); }}) {}

ActorJob::~ActorJob() { Stop(absl::ZeroDuration()); }

void ActorJob::Update(const v1::Assignment& assignment) {
  outbox_.SetReplayAddress(assignment.replay_address());
  outbox_.SetWorkerId(options_.session->worker_id());
  poller_->SetAddress(assignment.parameter_address());
}

void ActorJob::Stop(absl::Duration drain) {
  if (stopped_.exchange(true)) return;
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  outbox_.Drain(drain);
  const worker::OutboxStats outbox = outbox_.stats();
  service::LogLine("info", "actor_job_drained",
                   {{"job", job_id_},
                    {"sent", absl::StrCat(outbox.sent)},
                    {"dropped", absl::StrCat(outbox.dropped)}});
  if (options_.metrics != nullptr) options_.metrics->ForgetJob(job_id_);
}

ActorJobStats ActorJob::stats() const {
  ActorJobStats stats = stats_.Get();
  stats.learner_version = poller_->latest_version();
  stats.outbox = outbox_.stats();
  return stats;
}

void ActorJob::Play(std::stop_token stop) {
  // The learner's first version is the job's starting network (version 0
  // for a new job), which SyncParameters adopts like any later one; until
  // the learner publishes, the actor plays with the network it built.
  while (!stop.stop_requested()) {
    if (self_play_->SyncParameters(poller_->published())) {
      service::LogLine(
          "info", "parameters_adopted",
          {{"job", job_id_},
           {"version", absl::StrCat(self_play_->parameter_version())}});
    }
    self_play_->Step();
    Publish();
  }
}

void ActorJob::Publish() {
  const training::SelfPlayCounters& counters = self_play_->counters();
  const int64_t version = self_play_->parameter_version();
  const worker::OutboxStats outbox = outbox_.stats();
  v1::JobCounters proto;
  proto.set_job_id(job_id_);
  proto.set_games(counters.games);
  proto.set_moves(counters.moves);
  proto.set_simulations(counters.simulations);
  proto.set_best_starts(counters.best_starts);
  proto.set_followed_moves(counters.followed_moves);
  proto.set_rejoined(counters.rejoined);
  proto.set_unchanged(counters.unchanged);
  proto.set_best_start_window(counters.window);
  proto.set_parameter_version(version);
  options_.session->SetCounters(proto);
  const ActorJobStats previous = stats_.Update([&](ActorJobStats& stats) {
    const ActorJobStats before = stats;
    stats.games = counters.games;
    stats.moves = counters.moves;
    stats.simulations = counters.simulations;
    stats.best_starts = counters.best_starts;
    stats.followed_moves = counters.followed_moves;
    stats.rejoined = counters.rejoined;
    stats.parameter_version = version;
    stats.outbox = outbox;
    return before;
  });
  if (options_.metrics == nullptr) return;
  options_.metrics->AddMoves(job_id_, counters.moves - previous.moves);
  options_.metrics->AddSimulations(job_id_,
                                   counters.simulations - previous.simulations);
  options_.metrics->AddBestStarts(
      job_id_, counters.best_starts - previous.best_starts,
      counters.followed_moves - previous.followed_moves,
      counters.rejoined - previous.rejoined, counters.window);
  options_.metrics->SetParameters(job_id_, version, poller_->latest_version());
  options_.metrics->AddTrajectories(job_id_, outbox.sent - previous.outbox.sent,
                                    outbox.dropped - previous.outbox.dropped);
}

void ActorJob::OnGame(const game::MMapGame& game,
                      agent::Trajectory trajectory) {
  // A piece of a game still being played only goes to replay.
  if (options_.metrics != nullptr && !trajectory.continues) {
    options_.metrics->AddGame(
        job_id_, game.infeasible() ? 0.0 : trajectory.normalised_return);
  }
  const bool solution_found =
      !trajectory.continues && !game.infeasible() && !trajectory.rejoined;
  v1::Trajectory proto;
  agent::TrajectoryToProto(trajectory, &proto);
  outbox_.Add(std::move(proto));
  if (solution_found) OfferSolution(game);
}

void ActorJob::OfferSolution(const game::MMapGame& game) {
  if (game.Return() <= offered_return_us_) return;
  offered_return_us_ = game.Return();
  const int64_t version = self_play_->parameter_version();
  Solution solution = game.ToSolution();
  solution.mutable_solver()->set_name("muzero");
  (*solution.mutable_solver()->mutable_settings())["parameter_version"] =
      absl::StrCat(version);
  outbox_.OfferSolution(solution, version);
}

}  // namespace mmapzero::actor
