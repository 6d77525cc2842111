#include "common/metrics/health_checks.h"

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "common/metrics/loopback_http.h"
#include "common/metrics/metrics_endpoint.h"
#include "gtest/gtest.h"

namespace mmapzero::metrics {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

TEST(HealthChecksTest, HealthyWithNoChecksAndWhileLoopsReportSuccess) {
  HealthChecks checks;
  EXPECT_TRUE(checks.Evaluate(kStart).healthy);
  checks.Add("database", absl::Seconds(30), kStart);
  checks.Succeeded("database", kStart + absl::Seconds(20));
  const HealthChecks::Report report =
      checks.Evaluate(kStart + absl::Seconds(45));
  EXPECT_TRUE(report.healthy) << report.text;
  EXPECT_EQ(report.text, "database ok\n");
}

TEST(HealthChecksTest, AFailedRoundFailsUntilTheNextSuccess) {
  HealthChecks checks;
  checks.Add("replay_tables", absl::Minutes(3), kStart);
  checks.Failed("replay_tables", "checkpoint failed: No space left on device");
  HealthChecks::Report report = checks.Evaluate(kStart + absl::Seconds(11));
  EXPECT_FALSE(report.healthy);
  EXPECT_TRUE(absl::StrContains(
      report.text, "replay_tables FAILING: checkpoint failed: No space left"))
      << report.text;
  checks.Succeeded("replay_tables", kStart + absl::Seconds(70));
  report = checks.Evaluate(kStart + absl::Seconds(71));
  EXPECT_TRUE(report.healthy) << report.text;
}

TEST(HealthChecksTest, SilenceLongerThanAllowedFails) {
  HealthChecks checks;
  checks.Add("learner_job_job-000001", absl::Minutes(10), kStart);
  EXPECT_TRUE(checks.Evaluate(kStart + absl::Minutes(9)).healthy);
  const HealthChecks::Report report =
      checks.Evaluate(kStart + absl::Minutes(11));
  EXPECT_FALSE(report.healthy);
  EXPECT_TRUE(absl::StrContains(report.text,
                                "learner_job_job-000001 FAILING: no progress "
                                "for 11m (allowed 10m)"))
      << report.text;
  // A finished job's check goes away with it.
  checks.Remove("learner_job_job-000001");
  EXPECT_TRUE(checks.Evaluate(kStart + absl::Minutes(11)).healthy);
  // Reports for checks never added change nothing.
  checks.Failed("nobody", "x");
  EXPECT_TRUE(checks.Evaluate(kStart).healthy);
}

TEST(HealthChecksTest, OneFailingCheckFailsTheWholeAndIsNamed) {
  HealthChecks checks;
  checks.Add("a", absl::Minutes(1), kStart);
  checks.Add("b", absl::Minutes(1), kStart);
  checks.Failed("b", "broken");
  const HealthChecks::Report report = checks.Evaluate(kStart);
  EXPECT_FALSE(report.healthy);
  EXPECT_TRUE(absl::StrContains(report.text, "a ok\n")) << report.text;
  EXPECT_TRUE(absl::StrContains(report.text, "b FAILING: broken"))
      << report.text;
  EXPECT_EQ(checks.Page().status, 503);
}

// The metrics endpoint over real HTTP: /metrics serves the registry in
// Prometheus' text format, /healthz answers 200 or 503 with the process's
// checks, and anything else is not found.
TEST(HealthChecksTest, MetricsEndpointServesMetricsAndHealthz) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter()
      .Name("mmapzero_test_total")
      .Help("a test counter")
      .Register(*registry)
      .Add({})
      .Increment(3);
  absl::StatusOr<MetricsEndpoint> endpoint =
      StartMetricsEndpoint("127.0.0.1:0", {registry});
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  ASSERT_GT(endpoint->port, 0);

  const std::string metrics = LoopbackHttpGet(endpoint->port, "/metrics");
  EXPECT_TRUE(absl::StartsWith(metrics, "HTTP/1.1 200")) << metrics;
  EXPECT_TRUE(absl::StrContains(metrics, "text/plain; version=0.0.4"));
  EXPECT_TRUE(absl::StrContains(metrics, "mmapzero_test_total 3")) << metrics;

  const std::string name = "health_checks_test_loop";
  ProcessHealth().Add(name, absl::Minutes(1));
  std::string healthz = LoopbackHttpGet(endpoint->port, "/healthz");
  EXPECT_TRUE(absl::StartsWith(healthz, "HTTP/1.1 200")) << healthz;
  EXPECT_TRUE(absl::StrContains(healthz, name + " ok")) << healthz;
  ProcessHealth().Failed(name, "disk full");
  healthz = LoopbackHttpGet(endpoint->port, "/healthz");
  EXPECT_TRUE(absl::StartsWith(healthz, "HTTP/1.1 503")) << healthz;
  EXPECT_TRUE(absl::StrContains(healthz, name + " FAILING: disk full"))
      << healthz;
  ProcessHealth().Remove(name);

  const std::string nothing = LoopbackHttpGet(endpoint->port, "/nothing");
  EXPECT_TRUE(absl::StrContains(nothing.substr(0, 20), " 404")) << nothing;
  // /metrics only, not paths below it.
  const std::string below = LoopbackHttpGet(endpoint->port, "/metrics/x");
  EXPECT_TRUE(absl::StrContains(below.substr(0, 20), " 404")) << below;
}

TEST(HealthChecksTest, APortInUseIsUnavailableNamingTheAddress) {
  absl::StatusOr<MetricsEndpoint> first =
      StartMetricsEndpoint("127.0.0.1:0", {});
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = "127.0.0.1:" + std::to_string(first->port);
  absl::StatusOr<MetricsEndpoint> second = StartMetricsEndpoint(taken, {});
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsUnavailable(second.status()));
  EXPECT_TRUE(absl::StrContains(second.status().message(), taken))
      << second.status();
}

}  // namespace
}  // namespace mmapzero::metrics
