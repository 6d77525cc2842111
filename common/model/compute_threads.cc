#include "common/model/compute_threads.h"

#include <dlfcn.h>
#include <torch/torch.h>

namespace mmapzero::model {

void SetComputeThreads(int threads) {
  if (threads <= 0) return;  // LibTorch's and OpenBLAS's own defaults
  torch::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) {
    reinterpret_cast<SetThreads>(symbol)(threads);
  }
}

}  // namespace mmapzero::model
