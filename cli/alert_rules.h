// The alert rules of deploy/prometheus/rules.yml, built into mmapctl so
// that `mmapctl local up --prometheus` loads the same rules as a cluster's
// Prometheus (cli/CMakeLists.txt embeds the file at configure time).
#ifndef MMAPZERO_CLI_ALERT_RULES_H_
#define MMAPZERO_CLI_ALERT_RULES_H_

namespace mmapzero::cli {

extern const char kAlertRules[];

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_ALERT_RULES_H_
