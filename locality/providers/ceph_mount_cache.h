// ceph_mount_cache.h - one libcephfs mount shared by the calls of a burst.
//
// Why: a mount takes about 20 ms, but unmounting a Pacific client waits for its next
// upkeep tick (client_tick_interval: whole seconds, 1 by default) before its MDS session
// can close, so a mount per call costs up to a second, and a program's DLI_* calls come
// in bursts (dli_query makes dozens in a row). A mount not used for two seconds is
// replaced at the next call, so that a cluster that went away meanwhile is noticed
// within the connect timeout (DLI_ERR_CONNECT) instead of hanging an MDS request. The
// mounts left are unmounted when the process exits: a client that dies mounted keeps
// its capabilities until the MDS times its session out, stalling other clients' writers.
#pragma once
#include <memory>
#include <string>

#include "../config.h"
#include "providers/ceph_client.h"

namespace dli {

// The mount for these settings and FS_NAME: a recent one, or a new one (which throws
// as CephMount's constructor does).
std::shared_ptr<CephMount> shared_ceph_mount(const Config &config, const std::string &fs_name);

}  // namespace dli
