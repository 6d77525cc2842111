// Raises every fixed thread-stack request to at least 1 MiB.
//
// Why: glibc carves a thread's static TLS out of the stack it is given, and a
// process linked with Debian's LibTorch carries ~106 KiB of static TLS
// (libopenblas 60 KiB, libglog 30 KiB, libtorch_cpu 10 KiB, ...). civetweb,
// under prometheus-cpp's Exposer, asks for 100 KiB stacks, so its
// pthread_create fails with EINVAL and the Exposer throws "null context when
// constructing CivetServer". Every binary that links LibTorch and serves
// /metrics with prometheus::Exposer needs this file (and ENABLE_EXPORTS, so
// shared libraries bind to this definition instead of glibc's).
#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cstddef>

namespace {

constexpr size_t kMinThreadStackBytes = size_t{1} << 20;

using SetStackSizeFn = int (*)(pthread_attr_t*, size_t);

}  // namespace

extern "C" int pthread_attr_setstacksize(pthread_attr_t* attr, size_t size) {
  static const auto glibc_set_stack_size = reinterpret_cast<SetStackSizeFn>(
      dlsym(RTLD_NEXT, "pthread_attr_setstacksize"));
  return glibc_set_stack_size(attr, std::max(size, kMinThreadStackBytes));
}
