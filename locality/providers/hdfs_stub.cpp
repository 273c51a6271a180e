// hdfs_stub.cpp - the hdfs provider when libdli was configured without libcurl or
// nlohmann-json: hdfs names are refused with DLI_ERR_UNSUPPORTED.
#include "error.h"
#include "providers/provider.h"
namespace dli {
std::unique_ptr<Provider> make_hdfs_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED,
                "the hdfs provider is not built in (configure found no libcurl or nlohmann-json)");
}
}  // namespace dli
