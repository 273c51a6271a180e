// Placeholder until the posix and static providers land.
#include "error.h"
#include "providers/posix.h"
#include "providers/provider.h"
namespace dli {
std::unique_ptr<Provider> make_posix_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED, "the posix provider is not built in");
}
std::unique_ptr<Provider> make_static_provider(const Config &) {
    throw Error(DLI_ERR_UNSUPPORTED, "the static provider is not built in");
}
bool static_map_lists(const Config &, const std::string &) { return false; }
PosixHolding posix_holding(const std::string &) { return {}; }
ChunkTable combine_posix_holdings(const std::string &name, const Config &,
                                  const std::vector<std::string> &, const std::vector<PosixHolding> &) {
    throw Error(DLI_ERR_UNSUPPORTED, name + ": the posix provider is not built in");
}
std::vector<char> encode_holding(const PosixHolding &) { return {}; }
PosixHolding decode_holding(const char *, size_t) { return {}; }
}  // namespace dli
