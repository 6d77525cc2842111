// Lease tickets: signed, checked against the job, worker and role they
// name, taken through their grace and refused after it.
#include "common/security/lease_ticket.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::security {
namespace {

using ::testing::HasSubstr;

v1::LeaseTicket Ticket(const std::string& key) {
  v1::LeaseTicket ticket;
  ticket.set_job_id("job-000007");
  ticket.set_worker_id("worker-000003");
  ticket.set_role(v1::WORKER_ROLE_ACTOR);
  ticket.set_expiry_unix_ms(10'000);
  ticket.set_grace_ms(5'000);
  SignLeaseTicket(key, ticket);
  return ticket;
}

TEST(LeaseTicketTest, ASignedTicketIsTakenUntilItsGraceEnds) {
  const std::string key = *NewLeaseKey();
  ASSERT_EQ(key.size(), static_cast<size_t>(kLeaseKeyBytes));
  const v1::LeaseTicket ticket = Ticket(key);
  for (const int64_t now : {0, 10'000, 15'000}) {
    EXPECT_TRUE(CheckLeaseTicket(key, ticket, "job-000007", "worker-000003",
                                 {v1::WORKER_ROLE_ACTOR}, now)
                    .ok())
        << now;
  }
  // The worker id is checked only where the request names one.
  EXPECT_TRUE(CheckLeaseTicket(key, ticket, "job-000007", "",
                               {v1::WORKER_ROLE_ACTOR}, 0)
                  .ok());
  const absl::Status late = CheckLeaseTicket(
      key, ticket, "job-000007", "worker-000003", {v1::WORKER_ROLE_ACTOR},
      15'001);
  EXPECT_EQ(late.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.message(), HasSubstr("ended at 1970-01-01T00:00:10.000Z"));
}

TEST(LeaseTicketTest, AnythingChangedOrMissingIsPermissionDenied) {
  const std::string key = *NewLeaseKey();
  const v1::LeaseTicket ticket = Ticket(key);
  auto check = [&](const v1::LeaseTicket& t, const std::string& job,
                   const std::string& worker) {
    return CheckLeaseTicket(key, t, job, worker, {v1::WORKER_ROLE_ACTOR}, 0);
  };
  EXPECT_THAT(check(v1::LeaseTicket(), "job-000007", "").message(),
              HasSubstr("lease_ticket: required"));
  v1::LeaseTicket longer = ticket;
  longer.set_expiry_unix_ms(ticket.expiry_unix_ms() + 3'600'000);
  v1::LeaseTicket other_job = ticket;
  other_job.set_job_id("job-000008");
  v1::LeaseTicket learner = ticket;
  learner.set_role(v1::WORKER_ROLE_LEARNER);
  for (const v1::LeaseTicket& changed : {longer, other_job, learner}) {
    const absl::Status status = check(changed, changed.job_id(), "");
    EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(status.message(), HasSubstr("not signed"));
  }
  EXPECT_THAT(check(ticket, "job-000008", "").message(),
              HasSubstr("a lease on job-000007, not on job_id job-000008"));
  EXPECT_THAT(check(ticket, "job-000007", "worker-000004").message(),
              HasSubstr("granted to worker-000003"));
  EXPECT_EQ(CheckLeaseTicket(*NewLeaseKey(), ticket, "job-000007", "",
                             {v1::WORKER_ROLE_ACTOR}, 0)
                .code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CheckLeaseTicket(key, ticket, "job-000007", "",
                             {v1::WORKER_ROLE_REANALYSE}, 0)
                .code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CheckLeaseTicket("", ticket, "job-000007", "",
                             {v1::WORKER_ROLE_ACTOR}, 0)
                .code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace mmapzero::security
