// hosts.h - naming hosts: this process's own name, and when two names are one host.
#pragma once
#include <string>

namespace dli {

// PIOX_HOSTNAME when set and not empty, else MPI_Get_processor_name (gethostname
// before MPI_Init or after MPI_Finalize).
std::string this_host();

// The host name that stands for every host: a chunk whose hosts are {"*"} is local to
// all of them ("no other information", the posix provider on a shared file system).
inline constexpr const char *every_host = "*";

// Case-insensitive; "*" matches every name; a name without a dot also matches a qualified name with the same
// first label ("node1" == "NODE1.cluster.example"), two qualified names must be equal.
bool same_host(const std::string &a, const std::string &b);

}  // namespace dli
