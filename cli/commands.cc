#include "cli/commands.h"

namespace mmapzero::cli {

namespace {

std::vector<Command>& Commands() {
  static auto* commands = new std::vector<Command>{
      {"generate", "generate --family F --buffers N --seed S --out WORKLOAD",
       "write a seeded synthetic workload (mlp, cnn, transformer, lstm)",
       RunGenerate},
      {"import",
       "import MODULE.hlo --hardware PROFILE --out WORKLOAD "
       "[--trip-counts WHILE=N,...] [--mapping-out SOLUTION]",
       "import an XLA HLO text module as a workload (and its own placement "
       "as a solution)",
       RunImport},
      {"export", "export WORKLOAD SOLUTION --hlo MODULE.hlo --out DIR",
       "write a solution into its HLO module: S(1) layouts and copy pairs, "
       "offsets, XLA's override protos",
       RunExport},
      {"inspect", "inspect WORKLOAD [--json]",
       "counts, sizes and memory pressure over time", RunInspect},
      {"play",
       "play WORKLOAD --policy random|drop-all|fast-first --seed S --out "
       "SOLUTION",
       "play one game with a simple policy and write the solution", RunPlay},
      {"solve",
       "solve WORKLOAD [--solver "
       "portfolio|heuristic|es|brkga|race|random|drop-all"
       "|muzero] [--budget 60s] [--evaluations N] [--threads N] [--seed S] "
       "[--set key=value ...] [--out SOLUTION] [--svg layout.svg] [--json] "
       "[--bound] "
       "[--data-dir DIR] [--in-process]",
       "find the best solution the available solvers reach (muzero: as a "
       "job on the local cluster)",
       RunSolve},
      {"validate", "validate WORKLOAD SOLUTION [--json]",
       "check a solution independently of the engine", RunValidate},
      {"evaluate", "evaluate WORKLOAD SOLUTION [--json] [--bound]",
       "return, latency (modelled and simulated) and speed-up", RunEvaluate},
      {"bound",
       "bound WORKLOAD [--solution SOLUTION] [--time-limit SECONDS] "
       "[--write-lp FILE.mps] [--json]",
       "an upper bound on the best normalised return (and a solution's gap "
       "to it)",
       RunBound},
      {"render",
       "render WORKLOAD SOLUTION --out layout.svg [--width PX] [--height PX] "
       "[--legend N]",
       "draw the memory layout (time x offset) as SVG", RunRender},
      {"submit",
       "submit WORKLOAD [--config cpu|paper|FILE] [--budget 24h] [--steps N] "
       "[--name NAME] [--start SOLUTION] [--network NAME|JOB|FILE|none] "
       "[--json]",
       "send a workload to the coordinator as a training job; prints its id",
       RunSubmit},
      {"list", "list [--state running,...] [--limit N] [--json]",
       "the coordinator's jobs, newest first", RunList},
      {"status", "status JOB [--json]", "one job's state and progress",
       RunStatus},
      {"watch", "watch JOB [--for 25h] [--json]",
       "follow a job's progress until it ends", RunWatch},
      {"best", "best JOB --out SOLUTION [--svg layout.svg] [--json] [--bound]",
       "fetch a job's best solution, validate it here and write it", RunBest},
      {"cancel", "cancel JOB [--reason TEXT] [--json]",
       "cancel a seeding, queued or running job", RunCancel},
      {"delete", "delete JOB [--json]",
       "remove a done, failed or cancelled job and what the coordinator "
       "keeps of it",
       RunDelete},
      {"extend", "extend JOB --budget D [--json]",
       "give a job that has not ended D more wall time (24 h at most in "
       "all)",
       RunExtend},
      {"resume", "resume JOB --budget D [--json]",
       "run a done or cancelled job again for D, from its best and its "
       "learner's last checkpoint",
       RunResume},
      {"archive", "archive JOB --out FILE [--no-network] [--json]",
       "keep a job's status, settings, workload, best, history and network "
       "in one tar file",
       RunArchive},
      {"networks",
       "networks list | show NAME | export NAME --out FILE | import FILE "
       "--name NAME [--description TEXT] | import --from-job JOB --name NAME "
       "| delete NAME [--json]",
       "the coordinator's registry of networks jobs can start from",
       RunNetworks},
      {"local",
       "local up|down|status [--data-dir DIR] [--actors N] [--reanalyse N] "
       "[--learner-jobs N] [--only coordinator,...] [--prometheus]",
       "start, stop or show a whole cluster as processes on this machine",
       RunLocal},
      {"certs",
       "certs --out DIR [--hosts NAME,ADDRESS,...] [--days 365] | certs "
       "--out DIR --client NAME",
       "make a CA and certificates (worker, client, admin) for mutual TLS, "
       "or one more client identity",
       RunCerts},
  };
  return *commands;
}

}  // namespace

const std::vector<Command>& AllCommands() { return Commands(); }

void AddCommand(const Command& command) { Commands().push_back(command); }

}  // namespace mmapzero::cli
