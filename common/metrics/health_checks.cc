#include "common/metrics/health_checks.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::metrics {

void HealthChecks::Add(const std::string& name, absl::Duration max_silence,
                       absl::Time now) {
  absl::MutexLock lock(&mu_);
  checks_[name] = {.max_silence = max_silence, .last_success = now};
}

void HealthChecks::Succeeded(const std::string& name, absl::Time now) {
  absl::MutexLock lock(&mu_);
  auto it = checks_.find(name);
  if (it == checks_.end()) return;
  it->second.last_success = now;
  it->second.failure.clear();
}

void HealthChecks::Failed(const std::string& name, const std::string& reason) {
  absl::MutexLock lock(&mu_);
  auto it = checks_.find(name);
  if (it == checks_.end()) return;
  it->second.failure = reason.empty() ? "failed" : reason;
}

void HealthChecks::Remove(const std::string& name) {
  absl::MutexLock lock(&mu_);
  checks_.erase(name);
}

HealthChecks::Report HealthChecks::Evaluate(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  Report report;
  for (const auto& [name, check] : checks_) {
    const absl::Duration silence = now - check.last_success;
    const std::string since =
        absl::FormatDuration(absl::Trunc(silence, absl::Seconds(1)));
    std::string state = "ok";
    if (!check.failure.empty()) {
      state = absl::StrCat("FAILING: ", check.failure, " (last success ", since,
                           " ago)");
    } else if (silence > check.max_silence) {
      state = absl::StrCat("FAILING: no progress for ", since, " (allowed ",
                           absl::FormatDuration(check.max_silence), ")");
    }
    if (state != "ok") report.healthy = false;
    absl::StrAppend(&report.text, name, " ", state, "\n");
  }
  if (checks_.empty()) report.text = "no checks\n";
  return report;
}

HttpResponse HealthChecks::Page() const {
  const Report report = Evaluate();
  return {.status = report.healthy ? 200 : 503,
          .content_type = "text/plain; charset=utf-8",
          .body = absl::StrCat(report.healthy ? "ok\n" : "unhealthy\n",
                               report.text)};
}

HealthChecks& ProcessHealth() {
  static auto* checks = new HealthChecks();
  return *checks;
}

}  // namespace mmapzero::metrics
