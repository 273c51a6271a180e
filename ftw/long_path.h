// long_path.h - opening and stat'ing by a path that may be longer than PATH_MAX.
//
// Items sent by another rank carry a full path and no open parent. In deep trees
// (a 10,000-level chain) such paths exceed PATH_MAX, which open(2) refuses, so the
// path is resolved a piece at a time with openat.
#ifndef PFTW_LONG_PATH_H
#define PFTW_LONG_PATH_H

#include <string>

#include <sys/stat.h>

namespace pftw {

// open(path, flags), for any length of path; -1 with errno on failure.
int open_long_path(const std::string &path, int flags);

// fstatat of the entry whose name starts at path[name_offset], not following a
// final link; name_offset 0 stats path itself. 0, or -1 with errno.
int stat_long_path(const std::string &path, size_t name_offset, struct stat *st);

}  // namespace pftw
#endif
