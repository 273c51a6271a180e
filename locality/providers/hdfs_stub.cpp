// Placeholder until the hdfs provider lands.
#include "error.h"
#include "providers/provider.h"
namespace dli {
std::unique_ptr<Provider> make_hdfs_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED, "the hdfs provider is not built in");
}
}  // namespace dli
