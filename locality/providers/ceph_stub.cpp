// Placeholder until the ceph provider lands.
#include "error.h"
#include "providers/provider.h"
namespace dli {
std::unique_ptr<Provider> make_ceph_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED, "the ceph provider is not built in");
}
bool is_ceph_name(const std::string &name) { return name.rfind("ceph://", 0) == 0; }
}  // namespace dli
