// ceph_stub.cpp - the ceph provider of a libdli configured without libcephfs: ceph://
// names and paths on CephFS mounts are still recognised (ceph_names.cpp), and answered
// with DLI_ERR_UNSUPPORTED rather than with the posix provider's "no information".
#include "error.h"
#include "providers/provider.h"

namespace dli {

std::unique_ptr<Provider> make_ceph_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED, "the ceph provider is not built in (libdli was configured without libcephfs)");
}

}  // namespace dli
