#include "common/validate/decision_order.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace mmapzero::validate {

std::vector<int> DecisionOrder(const Workload& workload) {
  std::vector<int> order(workload.buffers_size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&workload](int b) {
    const Buffer& buffer = workload.buffers(b);
    return std::make_tuple(buffer.target_time(), buffer.is_output(), b);
  };
  std::sort(order.begin(), order.end(),
            [&key](int a, int b) { return key(a) < key(b); });
  return order;
}

}  // namespace mmapzero::validate
