#include "common/metrics/job_series.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class JobSeriesTest : public ::testing::Test {
 protected:
  JobSeriesTest()
      : games_(
            prometheus::BuildCounter().Name("games_total").Register(registry_)),
        loss_(prometheus::BuildGauge().Name("loss").Register(registry_)),
        wait_(prometheus::BuildHistogram()
                  .Name("wait_seconds")
                  .Register(registry_)) {
    series_.Track(&games_, &loss_, &wait_);
  }

  void Record(const std::string& job) {
    series_.Update([&] {
      games_.Add({{"job", job}}).Increment();
      loss_.Add({{"job", job}, {"term", "value"}}).Set(1);
      loss_.Add({{"job", job}, {"term", "policy"}}).Set(2);
      wait_.Add({{"job", job}}, prometheus::Histogram::BucketBoundaries{1, 2})
          .Observe(0.5);
    });
  }
  std::string Text() const {
    return prometheus::TextSerializer().Serialize(registry_.Collect());
  }

  prometheus::Registry registry_;
  prometheus::Family<prometheus::Counter>& games_;
  prometheus::Family<prometheus::Gauge>& loss_;
  prometheus::Family<prometheus::Histogram>& wait_;
  JobSeries series_;
};

TEST_F(JobSeriesTest, ForgetRemovesEverySeriesOfTheJobAndNoOther) {
  Record("job-000001");
  Record("job-000002");
  series_.Forget("job-000001");
  const std::string text = Text();
  EXPECT_THAT(text, Not(HasSubstr("job-000001"))) << text;
  EXPECT_THAT(text, HasSubstr(R"(games_total{job="job-000002"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(loss{job="job-000002",term="policy"} 2)"));
  EXPECT_THAT(text, HasSubstr(R"(wait_seconds_count{job="job-000002"} 1)"));
  EXPECT_FALSE(games_.Has({{"job", "job-000001"}}));
  EXPECT_FALSE(loss_.Has({{"job", "job-000001"}, {"term", "value"}}));
  EXPECT_FALSE(wait_.Has({{"job", "job-000001"}}));

  series_.Forget("job-000009");  // never seen: nothing happens
  series_.Forget("job-000001");  // again: nothing happens
  EXPECT_EQ(Text(), text);

  Record("job-000001");  // working on it again: it starts afresh
  EXPECT_THAT(Text(), HasSubstr(R"(games_total{job="job-000001"} 1)"));
}

// Updates and removals of the same job's series from two threads: a
// removal never deletes a series between its lookup and its update
// (AddressSanitizer would see that use after free).
TEST_F(JobSeriesTest, UpdatesAndForgetsRaceSafely) {
  std::thread recorder([&] {
    for (int i = 0; i < 2000; ++i) Record("job-000001");
  });
  for (int i = 0; i < 2000; ++i) series_.Forget("job-000001");
  recorder.join();
  series_.Forget("job-000001");
  EXPECT_THAT(Text(), Not(HasSubstr("job-000001")));
}

}  // namespace
}  // namespace mmapzero::metrics
