#!/usr/bin/env python3
"""bench/day_soak.py: a day of a shared deployment compressed into hours.

A local cluster (`mmapctl local up`, two actors, a reanalyser and a learner
that trains two jobs at once) runs with the coordinator's retention set to
minutes (--config-dir), and for --minutes:
  - jobs are submitted (generated workloads of three families), extended,
    cancelled, resumed and deleted throughout, at most two unfinished at a
    time, and ended ones expire by the retention;
  - every --kill-every seconds a random service (not one of --spare) is
    killed with SIGKILL and `mmapctl local up` starts it again;
  - every --sample-every seconds each service's resident memory and open
    files, the data dir's disk use and the coordinator's database size are
    sampled, and every job's best is read.
What must hold (each checked, each breach a line in violations.txt):
  - a job's best normalised return never goes down, and every job's best
    still stored at the end validates (`mmapctl best`, which checks it with
    the engine-independent validator);
  - no job stuck: none running past its budget plus 4 minutes, none seeding
    or queued for more than 10 minutes;
  - every kill recovered: `local up` brings the service back and `local
    status` is healthy within 2 minutes;
  - each service's RSS grows less than 5 MB an hour between idle checks:
    at --warmup-minutes (20), then --idle-every minutes after each and at
    the end, every job is cancelled and deleted and, two memory releases
    later, each service's RSS is sampled (idle.csv), so that every check
    sees the same load (none) and a rise is memory kept, not memory in use
    for the jobs of the moment (least squares over the checks of each
    process that lived through two or more). The fit over every sample
    after the warm-up, under load, is reported beside it, split into
    anonymous and file pages and malloc's bytes in use;
  - disk: the data dir after the first hour stays within 10 % of the peak
    of the first hour after the warm-up (retention holds it level).
Writes into --out: samples.csv (elapsed_s, service, pid, rss_kib,
open_files, rss_anon_kib, rss_file_kib, threads, and malloc_in_use_kib and
malloc_free_kib from the service's /metrics), idle.csv (the same
columns, at the idle checks) and idle_disk.csv
(elapsed_s, data_dir_bytes: what no job leaves behind), disk.csv
(elapsed_s, data_dir_bytes, database_bytes),
jobs.csv (elapsed_s, job, state, best_normalised_return), kills.csv
(elapsed_s, service, recovered_s), actions.log, violations.txt,
summary.json and summary.md, rss.svg (bench/plot_soak.py) and disk.svg.
Not a CI test: run it on an otherwise idle machine.

Usage: bench/day_soak.py [--minutes 120] [--out DIR] [--bin DIR]
                         [--kill-every 300] [--sample-every 60]
                         [--retention-minutes 10] [--max-finished 6]
                         [--seed 1] [--spare learner,coordinator]
                         [--idle-every 40] [--warmup-minutes 20]
"""
import argparse
import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request

SAMPLE_COLUMNS = ["elapsed_s", "service", "pid", "rss_kib", "open_files",
                  "rss_anon_kib", "rss_file_kib", "threads",
                  "malloc_in_use_kib", "malloc_free_kib"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNFINISHED = {"JOB_STATE_SEEDING", "JOB_STATE_QUEUED", "JOB_STATE_RUNNING"}
ENDED = {"JOB_STATE_DONE", "JOB_STATE_CANCELLED", "JOB_STATE_FAILED"}
WORKLOADS = [("transformer", 800), ("lstm", 1000), ("cnn", 1200),
             ("transformer", 1500), ("lstm", 600), ("cnn", 700)]
RSS_LIMIT_MB_PER_HOUR = 5.0
IDLE_SETTLE_S = 150  # two memory releases, and the deleted jobs' tables gone


class Soak:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.data = os.path.join(self.out, "data")
        self.mmapctl = os.path.join(args.bin, "mmapctl")
        self.rng = random.Random(args.seed)
        self.spared = set(filter(None, args.spare.split(",")))  # never killed
        self.start = time.monotonic()
        self.best = {}          # job -> highest best seen
        self.stuck_seen = {}    # job -> times seen stuck in a row
        self.violations = []
        self.counts = {"submitted": 0, "extended": 0, "cancelled": 0,
                       "resumed": 0, "deleted": 0, "kills": 0,
                       "recovered": 0}
        self.log = open(os.path.join(self.out, "actions.log"), "a")

    # --- plumbing -------------------------------------------------------
    def elapsed(self):
        return int(time.monotonic() - self.start)

    def note(self, text):
        line = f"{self.elapsed():6d}s {text}"
        self.log.write(line + "\n")
        self.log.flush()
        print(f"day_soak: {line}", file=sys.stderr)

    def violation(self, text):
        self.violations.append(f"{self.elapsed()}s {text}")
        self.note(f"VIOLATION {text}")

    def ctl(self, *argv, check=False, timeout=120):
        """mmapctl ARGV --data-dir DATA: (exit code, stdout, stderr)."""
        try:
            done = subprocess.run([self.mmapctl, *argv, "--data-dir",
                                   self.data], capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124, "", "timed out"
        if check and done.returncode != 0:
            raise SystemExit(f"day_soak: mmapctl {' '.join(argv)} failed: "
                             f"{done.stderr.strip()}")
        return done.returncode, done.stdout, done.stderr

    def up(self):
        return self.ctl("local", "up", "--actors", "2", "--reanalyse", "1",
                        "--learner-jobs", "2", "--config-dir",
                        os.path.join(self.out, "configs"), "--wait", "120s",
                        timeout=300)

    def services(self):
        """{name: pid} from the data dir's pid files."""
        found = {}
        for name in os.listdir(self.data):
            if name.endswith(".pid") and name != "prometheus.pid":
                with open(os.path.join(self.data, name)) as f:
                    found[name[:-4]] = int(f.read().strip() or 0)
        return found

    def malloc_bytes(self, name):
        """(in use, free) bytes of the service's malloc, from its /metrics
        (mmapzero_malloc_bytes); (-1024, -1024) when it does not answer."""
        try:
            with open(os.path.join(self.data, name + ".metrics")) as f:
                address = f.read().strip()
            with urllib.request.urlopen(f"http://{address}/metrics",
                                        timeout=10) as page:
                text = page.read().decode()
        except (OSError, ValueError):
            return -1024, -1024
        found = {}
        for line in text.splitlines():
            if line.startswith("mmapzero_malloc_bytes{"):
                state = line.split('state="')[1].split('"')[0]
                found[state] = int(float(line.split()[-1]))
        return found.get("in_use", -1024), found.get("free", -1024)

    def jobs(self):
        """Every job's status (proto3 JSON), or None while unreachable."""
        code, out, _ = self.ctl("list", "--json", timeout=30)
        if code != 0:
            return None
        return json.loads(out).get("jobs", [])

    # --- set-up ---------------------------------------------------------
    def prepare(self):
        os.makedirs(os.path.join(self.out, "configs"), exist_ok=True)
        with open(os.path.join(ROOT, "deploy/k8s/base/config/"
                               "coordinator.json")) as f:
            config = json.load(f)
        config["finished_job_retention_ms"] = \
            self.args.retention_minutes * 60 * 1000
        config["max_finished_jobs"] = self.args.max_finished
        with open(os.path.join(self.out, "configs/coordinator.json"),
                  "w") as f:
            json.dump(config, f, indent=2)
        self.workloads = []
        for i, (family, buffers) in enumerate(WORKLOADS):
            path = os.path.join(self.out, f"{family}-{buffers}.json")
            if not os.path.exists(path):
                subprocess.run([self.mmapctl, "generate", "--family", family,
                                "--buffers", str(buffers), "--seed",
                                str(i + 1), "--mode", "training", "--out",
                                path], check=True, capture_output=True)
            self.workloads.append(path)
        code, out, err = self.up()
        if code != 0:
            raise SystemExit(f"day_soak: local up failed: {err.strip()}")
        self.note(f"cluster up: {', '.join(sorted(self.services()))}")

    # --- what users do --------------------------------------------------
    def act(self, jobs):
        unfinished = [j for j in jobs if j["state"] in UNFINISHED]
        running = [j for j in jobs if j["state"] == "JOB_STATE_RUNNING"]
        ended = [j for j in jobs if j["state"] in ENDED]
        resumable = [j for j in ended if j["state"] != "JOB_STATE_FAILED"]
        choices = []
        if len(unfinished) < 2:
            choices += ["submit"] * 3 + (["resume"] if resumable else [])
        elif self.rng.random() > 0.25:
            return  # most jobs run to their budget's end
        if running:
            choices += ["extend"] * 2 + ["cancel"]
        if ended:
            choices += ["delete"]
        if not choices:
            return
        action = self.rng.choice(choices)
        if action == "submit":
            workload = self.rng.choice(self.workloads)
            budget = self.rng.choice(["3m", "4m", "6m"])
            code, out, err = self.ctl("submit", workload, "--budget", budget,
                                      "--name", "soak")
            self.record(action, code, f"{os.path.basename(workload)} "
                        f"{budget} -> {out.strip()}", err)
        elif action == "resume":
            job = self.rng.choice(resumable)["job_id"]
            code, _, err = self.ctl("resume", job, "--budget", "3m")
            self.record(action, code, job, err)
        elif action == "extend":
            job = self.rng.choice(running)["job_id"]
            code, _, err = self.ctl("extend", job, "--budget", "2m")
            self.record(action, code, job, err)
        elif action == "cancel":
            job = self.rng.choice(running)["job_id"]
            code, _, err = self.ctl("cancel", job, "--reason", "soak")
            self.record(action, code, job, err)
        elif action == "delete":
            self.delete(self.rng.choice(ended)["job_id"])

    def delete(self, job):
        code, _, err = self.ctl("delete", job)
        self.record("delete", code, job, err)
        if code == 0:
            self.best.pop(job, None)

    def record(self, action, code, what, err):
        key = {"submit": "submitted", "resume": "resumed",
               "extend": "extended", "cancel": "cancelled",
               "delete": "deleted"}[action]
        if code == 0:
            self.counts[key] += 1
            self.note(f"{action} {what}")
        else:  # a service being restarted, or a race with the job's end
            self.note(f"{action} {what} refused: {err.strip()[:200]}")

    # --- faults ---------------------------------------------------------
    def kill_one(self):
        services = self.services()
        choices = sorted(n for n in services if n not in self.spared)
        if not choices:
            return
        name = self.rng.choice(choices)
        try:
            os.kill(services[name], signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.counts["kills"] += 1
        killed_at = time.monotonic()
        self.note(f"SIGKILL {name} (pid {services[name]})")
        time.sleep(2)
        deadline = killed_at + 120
        while time.monotonic() < deadline:
            self.up()
            code, _, _ = self.ctl("local", "status", timeout=30)
            if code == 0:
                recovered = time.monotonic() - killed_at
                self.counts["recovered"] += 1
                self.append("kills.csv", ["elapsed_s", "service",
                                          "recovered_s"],
                            [self.elapsed(), name, f"{recovered:.1f}"])
                self.note(f"{name} recovered in {recovered:.1f} s")
                return
            time.sleep(5)
        self.append("kills.csv", ["elapsed_s", "service", "recovered_s"],
                    [self.elapsed(), name, ""])
        self.violation(f"{name} not recovered 120 s after SIGKILL")

    # --- samples and checks ---------------------------------------------
    def append(self, name, header, row):
        path = os.path.join(self.out, name)
        new = not os.path.exists(path)
        with open(path, "a", newline="") as f:
            writer = csv.writer(f)
            if new:
                writer.writerow(header)
            writer.writerow(row)

    def sample_services(self, file, now):
        """A row of SAMPLE_COLUMNS per service into `file`."""
        for name, pid in sorted(self.services().items()):
            try:
                status = proc_status(pid)
                files = len(os.listdir(f"/proc/{pid}/fd"))
            except (OSError, KeyError):
                continue  # killed a moment ago; restarted by then
            in_use, free = self.malloc_bytes(name)
            self.append(file, SAMPLE_COLUMNS,
                        [now, name, pid, status["VmRSS"], files,
                         status["RssAnon"], status["RssFile"],
                         status["Threads"], in_use // 1024, free // 1024])

    def sample(self, jobs):
        now = self.elapsed()
        self.sample_services("samples.csv", now)
        self.append("disk.csv", ["elapsed_s", "data_dir_bytes",
                                 "database_bytes"],
                    [now, tree_bytes(self.data), sum(
                        file_bytes(os.path.join(self.data, "coordinator",
                                                "coordinator.db" + suffix))
                        for suffix in ("", "-wal", "-shm"))])
        for job in jobs or []:
            self.append("jobs.csv", ["elapsed_s", "job", "state",
                                     "best_normalised_return"],
                        [now, job["job_id"], job["state"],
                         job.get("best_normalised_return", 0)])

    def check(self, jobs):
        now_ms = time.time() * 1000
        listed = set()
        for job in jobs:
            job_id = job["job_id"]
            listed.add(job_id)
            best = float(job.get("best_normalised_return", 0))
            if best + 1e-12 < self.best.get(job_id, best):
                self.violation(f"{job_id} best went down: "
                               f"{self.best[job_id]} -> {best}")
            self.best[job_id] = max(best, self.best.get(job_id, best))
            stuck = False
            state = job["state"]
            if state == "JOB_STATE_RUNNING":
                started = int(job.get("started_unix_ms", 0))
                budget = int(job.get("budget", {}).get("wall_seconds", 0))
                stuck = started > 0 and now_ms - started > \
                    (budget + 240) * 1000
            elif state in ("JOB_STATE_SEEDING", "JOB_STATE_QUEUED"):
                created = int(job.get("created_unix_ms", 0))
                stuck = now_ms - created > 600 * 1000 and \
                    int(job.get("started_unix_ms", 0)) == 0
            self.stuck_seen[job_id] = self.stuck_seen.get(job_id, 0) + 1 \
                if stuck else 0
            if self.stuck_seen[job_id] == 2:
                self.violation(f"{job_id} stuck in {state}")
        for gone in set(self.best) - listed:  # deleted or expired
            del self.best[gone]

    # --- the run --------------------------------------------------------
    def run(self):
        self.prepare()
        end = self.start + self.args.minutes * 60
        next_sample = next_kill = time.monotonic()
        next_kill += self.args.kill_every
        next_idle = self.start + self.args.warmup_minutes * 60
        while time.monotonic() < end:
            if time.monotonic() >= next_idle:
                paused = self.idle_check()
                next_sample += paused
                next_kill += paused
                next_idle = time.monotonic() + self.args.idle_every * 60
            jobs = self.jobs()
            if time.monotonic() >= next_sample:
                self.sample(jobs)
                next_sample += self.args.sample_every
            if jobs is not None:
                self.check(jobs)
                self.act(jobs)
            if time.monotonic() >= next_kill:
                self.kill_one()
                next_kill += self.args.kill_every
            time.sleep(min(20, max(0, end - time.monotonic())))
        self.finish()

    def idle_check(self):
        """Every job cancelled and deleted, and, once the services have had
        two of their once-a-minute memory releases, each one's memory
        sampled into idle.csv: the same load (none) at every check, so
        that what a service holds then can only grow by a leak. Returns the
        seconds it took (kills and samples wait meanwhile)."""
        began = time.monotonic()
        self.note("idle check: cancelling and deleting every job")
        deadline = began + 300
        while time.monotonic() < deadline:
            jobs = self.jobs()
            if jobs == []:
                break
            for job in jobs or []:
                if job["state"] in UNFINISHED:
                    self.ctl("cancel", job["job_id"], "--reason", "idle check")
                else:
                    self.delete(job["job_id"])
            time.sleep(5)
        else:
            self.violation("idle check: jobs left after 5 minutes")
        time.sleep(IDLE_SETTLE_S)
        now = self.elapsed()
        self.sample_services("idle.csv", now)
        self.append("idle_disk.csv", ["elapsed_s", "data_dir_bytes"],
                    [now, tree_bytes(self.data)])
        self.note("idle check: sampled")
        return time.monotonic() - began

    def finish(self):
        jobs = self.jobs() or []
        self.sample(jobs)
        self.check(jobs)
        validated = 0
        for job in jobs:
            if float(job.get("best_normalised_return", 0)) <= 0:
                continue  # seeding: no best yet
            path = os.path.join(self.out, "best", f"{job['job_id']}.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            code, _, err = self.ctl("best", job["job_id"], "--out", path)
            if code == 0:
                validated += 1
            else:
                self.violation(f"{job['job_id']} best does not validate: "
                               f"{err.strip()[:200]}")
        self.idle_check()
        audit = audit_counts(os.path.join(self.data, "coordinator",
                                          "audit.jsonl"))
        self.ctl("local", "down", timeout=120)
        summary = summarise(self.out, self.args, self.counts, audit,
                            validated, self.violations)
        with open(os.path.join(self.out, "violations.txt"), "w") as f:
            f.write("".join(v + "\n" for v in self.violations))
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
        with open(os.path.join(self.out, "summary.md"), "w") as f:
            f.write(markdown(summary))
        subprocess.run([sys.executable, os.path.join(ROOT, "bench",
                                                     "plot_soak.py"),
                        os.path.join(self.out, "samples.csv"),
                        os.path.join(self.out, "rss.svg"),
                        "--warmup-seconds",
                        str(self.args.warmup_minutes * 60)],
                       capture_output=True)
        disk_svg(os.path.join(self.out, "disk.csv"),
                 os.path.join(self.out, "disk.svg"))
        print(markdown(summary))
        if self.violations:
            sys.exit(1)


def proc_status(pid):
    """{field: number} of /proc/PID/status's numeric fields (kB as is)."""
    found = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            words = value.split()
            if words and words[0].isdigit():
                found[key] = int(words[0])
    return found


def file_bytes(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def tree_bytes(path):
    total = 0
    for folder, _, files in os.walk(path):
        total += sum(file_bytes(os.path.join(folder, f)) for f in files)
    return total


def audit_counts(path):
    counts = {}
    try:
        with open(path) as f:
            for line in f:
                event = json.loads(line).get("event", "")
                counts[event] = counts.get(event, 0) + 1
    except OSError:
        pass
    return counts


def slope_per_hour(points):
    """Least-squares slope of (seconds, kib) points, in MB per hour."""
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    cov = sum((t - mean_t) * (v - mean_v) for t, v in points)
    return cov / var * 3600 * 1024 / 1e6


# Columns of samples.csv whose growth the summary reports beside RSS (the
# split says what grows: malloc's in-use bytes are live data, anonymous
# pages above them freed memory held, file pages code touched).
PARTS = [("rss_anon_kib", "anonymous"), ("rss_file_kib", "file"),
         ("malloc_in_use_kib", "malloc in use")]


def idle_disk(out):
    """The data dir's bytes at each idle check (idle_disk.csv), in order."""
    path = os.path.join(out, "idle_disk.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [int(row["data_dir_bytes"]) for row in csv.DictReader(f)]


def idle_growth(out):
    """{service: {"mb_per_hour", "first_mb", "last_mb", "checks"}} from
    idle.csv, for each process sampled at two idle checks or more (a
    service killed in between is judged by its longest-lived process)."""
    path = os.path.join(out, "idle.csv")
    if not os.path.exists(path):
        return {}
    processes = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            processes.setdefault((row["service"], row["pid"]), []).append(
                (int(row["elapsed_s"]), int(row["rss_kib"])))
    growth = {}
    for (service, _), points in processes.items():
        if len(points) < 2:
            continue
        span = points[-1][0] - points[0][0]
        if service in growth and span <= growth[service]["span_s"]:
            continue
        growth[service] = {"mb_per_hour": slope_per_hour(points),
                           "first_mb": points[0][1] / 1024,
                           "last_mb": points[-1][1] / 1024,
                           "checks": len(points), "span_s": span}
    return growth


def summarise(out, args, counts, audit, validated, violations):
    processes = {}  # (service, pid) -> [row of samples.csv]
    with open(os.path.join(out, "samples.csv")) as f:
        for row in csv.DictReader(f):
            processes.setdefault((row["service"], row["pid"]), []).append(row)
    rss = {}
    for (service, _), rows in processes.items():
        first = int(rows[0]["elapsed_s"])
        late = [row for row in rows
                if int(row["elapsed_s"]) - first >= args.warmup_minutes * 60]
        if len(late) < 3:
            continue  # a process killed before it had warmed up
        growth = slope_per_hour([(int(row["elapsed_s"]), int(row["rss_kib"]))
                                 for row in late])
        entry = rss.setdefault(service, {"mb_per_hour": growth,
                                         "max_open_files": 0})
        if growth >= entry["mb_per_hour"]:  # the worst process's figures
            entry["mb_per_hour"] = growth
            entry["end_mb"] = int(late[-1]["rss_kib"]) / 1024
            entry["parts_mb_per_hour"] = {
                label: slope_per_hour([(int(row["elapsed_s"]),
                                        int(row[column])) for row in late])
                for column, label in PARTS
                if all(int(row.get(column) or -1) >= 0 for row in late)}
        entry["max_open_files"] = max(
            entry["max_open_files"],
            max(int(row["open_files"]) for row in rows))
    idle = idle_growth(out)
    for service, growth in idle.items():
        rss.setdefault(service, {"mb_per_hour": 0.0, "end_mb": 0,
                                 "max_open_files": 0})
        rss[service]["idle"] = growth
    for service, entry in rss.items():
        # The check: RSS at the idle checks (the same load) when there were
        # two or more; else the fit of every sample (older runs).
        if "idle" in entry:
            growth, what = entry["idle"]["mb_per_hour"], "between idle checks"
        elif idle:
            continue  # not alive through two idle checks
        else:
            growth, what = entry["mb_per_hour"], f"after its first {args.warmup_minutes} minutes"
        if growth >= RSS_LIMIT_MB_PER_HOUR:
            violations.append(f"{service} RSS grows {growth:.1f} MB/h {what}")
    disk = []
    with open(os.path.join(out, "disk.csv")) as f:
        for row in csv.DictReader(f):
            disk.append((int(row["elapsed_s"]), int(row["data_dir_bytes"]),
                         int(row["database_bytes"])))
    first_hour = [b for t, b, _ in disk if 600 <= t < 3600]
    later = [b for t, b, _ in disk if t >= 3600]
    disk_limit = max(first_hour) * 1.1 if first_hour else 0
    if later and disk_limit and max(later) > disk_limit:
        violations.append(f"disk {max(later)} bytes after the first hour, "
                          f"over {disk_limit:.0f} (first hour's peak + 10 %)")
    return {
        "cores": os.cpu_count(),
        "minutes": args.minutes,
        "retention_minutes": args.retention_minutes,
        "max_finished": args.max_finished,
        "kill_every_s": args.kill_every,
        "actions": counts,
        "audit_events": audit,
        "bests_validated_at_end": validated,
        "rss": rss,
        "disk_first_hour_peak_bytes": max(first_hour) if first_hour else 0,
        "disk_after_first_hour_peak_bytes": max(later) if later else 0,
        "disk_end_bytes": disk[-1][1] if disk else 0,
        "database_peak_bytes": max((d for _, _, d in disk), default=0),
        "idle_disk_bytes": idle_disk(out),
        "violations": violations,
    }


def markdown(summary):
    lines = [
        f"Day soak: {summary['minutes']} min on {summary['cores']} cores, "
        f"retention {summary['retention_minutes']} min / "
        f"{summary['max_finished']} ended jobs, a SIGKILL every "
        f"{summary['kill_every_s']} s.",
        "",
        "| what | count |", "| --- | --- |"]
    for key, value in summary["actions"].items():
        lines.append(f"| {key} | {value} |")
    for key, value in sorted(summary["audit_events"].items()):
        lines.append(f"| audit {key} | {value} |")
    lines.append(f"| bests validated at the end | "
                 f"{summary['bests_validated_at_end']} |")
    lines += ["", "| service | RSS growth between idle checks (MB/h) | "
              "RSS at the first and last idle check (MB) | RSS growth "
              "under load, after the warm-up (MB/h) | of it: "
              + ", ".join(label for _, label in PARTS) + " (MB/h) | RSS at "
              "end (MB) | open files (max) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for service, entry in sorted(summary["rss"].items()):
        parts = entry.get("parts_mb_per_hour", {})
        split = ", ".join(f"{parts[label]:.2f}" if label in parts else "-"
                          for _, label in PARTS)
        idle = entry.get("idle")
        idle_growth_text = f"{idle['mb_per_hour']:.2f}" if idle else "-"
        idle_range = (f"{idle['first_mb']:.0f} → {idle['last_mb']:.0f} "
                      f"({idle['checks']} checks)" if idle else "-")
        lines.append(f"| {service} | {idle_growth_text} | {idle_range} | "
                     f"{entry['mb_per_hour']:.2f} | {split} | "
                     f"{entry['end_mb']:.0f} | {entry['max_open_files']} |")
    lines += ["", f"Disk: first hour's peak "
              f"{summary['disk_first_hour_peak_bytes'] / 1e6:.1f} MB, after "
              f"it {summary['disk_after_first_hour_peak_bytes'] / 1e6:.1f} "
              f"MB, at the end {summary['disk_end_bytes'] / 1e6:.1f} MB; "
              f"database peak {summary['database_peak_bytes'] / 1e6:.1f} MB"
              + (f"; at the idle checks (no job) " + ", ".join(
                  f"{b / 1e6:.1f}" for b in summary["idle_disk_bytes"])
                 + " MB" if summary.get("idle_disk_bytes") else "") + ".",
              "", f"Violations: {len(summary['violations'])}"]
    lines += [f"- {v}" for v in summary["violations"]]
    return "\n".join(lines) + "\n"


def disk_svg(csv_path, svg_path):
    """The data dir's size over time, one polyline."""
    points = []
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            points.append((int(row["elapsed_s"]),
                           int(row["data_dir_bytes"]) / 1e6))
    if len(points) < 2:
        return
    width, height, pad = 640, 240, 40
    t_max = max(t for t, _ in points) or 1
    v_max = max(v for _, v in points) or 1
    coords = " ".join(
        f"{pad + t / t_max * (width - 2 * pad):.1f},"
        f"{height - pad - v / v_max * (height - 2 * pad):.1f}"
        for t, v in points)
    with open(svg_path, "w") as f:
        f.write(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" font-family="sans-serif" font-size="12">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n'
            f'<polyline fill="none" stroke="#4e79a7" stroke-width="2" '
            f'points="{coords}"/>\n'
            f'<text x="{pad}" y="20">data dir, MB (peak {v_max:.0f}) over '
            f'{t_max / 60:.0f} min</text>\n'
            f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" '
            f'y2="{height - pad}" stroke="black"/>\n</svg>\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=int, default=120)
    parser.add_argument("--out", default="")
    parser.add_argument("--bin", default=os.path.join(
        os.environ.get("MMAPZERO_BUILD_DIR", os.path.join(ROOT, "build")),
        "bin"))
    parser.add_argument("--kill-every", type=int, default=300)
    parser.add_argument("--sample-every", type=int, default=60)
    parser.add_argument("--retention-minutes", type=int, default=10)
    parser.add_argument("--max-finished", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle-every", type=int, default=40)
    parser.add_argument("--warmup-minutes", type=int, default=20)
    parser.add_argument(
        "--spare", default="",
        help="services never killed (comma-separated, e.g. learner,"
             "coordinator), so that their RSS is followed over the whole run")
    args = parser.parse_args()
    for name in ("minutes", "kill_every", "sample_every",
                 "retention_minutes", "max_finished"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if not os.access(os.path.join(args.bin, "mmapctl"), os.X_OK):
        parser.error(f"--bin: no mmapctl in {args.bin} (build it)")
    if not args.out:
        args.out = os.path.join(ROOT, "bench", "results", "day_soak",
                                time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(args.out, exist_ok=True)
    print(f"day_soak: {os.cpu_count()} cores, {args.minutes} min; output in "
          f"{args.out}", file=sys.stderr)
    soak = Soak(args)
    try:
        soak.run()
    finally:
        soak.ctl("local", "down", timeout=120)


if __name__ == "__main__":
    main()
