// The wire between the LD_AUDIT client (loader/client) and its node's load server
// (loader/server), over the Unix stream socket <PIOX_LOAD_DIR>/<node>/sock.
//
// Every message, either way, is a Frame followed by `length` payload bytes. A payload
// is a run of NUL-terminated strings. A process keeps one connection, sends one
// request at a time and reads its reply before the next: replies come in order.
//
// This header is compiled into the client too, which has no C or C++ library (it is
// built freestanding: loader/client/audit.cpp says why), so it may use fixed-width
// integers and nothing else.
#pragma once

#include <stdint.h>

namespace piox_load {

constexpr uint32_t kMagic = 0x314c5850;  // "PXL1" on a little-endian machine
constexpr uint32_t kMaxPayload = 1u << 16;  // paths and names: far more than PATH_MAX

struct Frame {
    uint32_t magic;
    uint16_t op;      // Op in a request, the same Op in its reply
    uint16_t status;  // Status in a reply, 0 in a request
    uint32_t length;  // payload bytes after the frame
};
static_assert(sizeof(Frame) == 12, "the frame is packed by construction");

enum Op : uint16_t {
    // "exe\0LD_LIBRARY_PATH\0": the process's executable (readlink of /proc/self/exe, as
    // the original path when it runs from the mirror: piox-load-exec)
    // and its LD_LIBRARY_PATH as the loader saw it at start-up (possibly empty).
    // Reply kFound, no payload.
    kHello = 1,
    // "name\0requester\0ancestor\0...": a bare library name (no '/') as the loader's
    // ORIG search asks for it, the original path of the object that needs it ("" for
    // the executable), and the objects that loaded the requester and have a DT_RPATH
    // (glibc's l_loader chain, nearest first, the executable left out). The server
    // replays glibc's search for the requester.
    // Reply kFound "mirror path\0", or kMissing "dir\0dir\0...": the directories
    // searched (original paths, hwcaps subdirectories included), where the client
    // may answer the loader's own candidates with a path that does not exist. A
    // directory the server could not replay (relative, $LIB) is not listed, and the
    // loader searches it itself.
    kResolve = 2,
    // "path\0": an absolute path (possibly with .. and symlinks) that the loader will
    // open as it is: a DT_NEEDED or dlopen name with '/', $ORIGIN already expanded.
    // Reply kFound "mirror path\0" or kMissing.
    kOpen = 3,
    // "path\0follow\0" (follow "1" or "0"): an absolute path under the Python
    // prefixes that the application itself opens or stats (a module, its bytecode,
    // a directory of them); a symlink at its end is followed when follow is "1".
    // Reply kFound "mirror path\0" (a copy of whatever it is: file, directory or
    // symlink), kMissing (it does not exist: ENOENT), or kRefused: this one call is
    // the process's to make on the file system (another errno, or not a file or a
    // directory); the session goes on. The only request that may come without a
    // hello: a connection may carry this one request alone (the client's exec
    // wrappers, Session::map_alone).
    kMap = 4,
    // "path\0": a directory under the Python prefixes that the application lists
    // (opendir). Reply kFound "listing path\0": a node-local directory holding an
    // empty entry of the same name and type for each of the original's, for the
    // names only; kMissing (ENOENT) or kRefused as for kMap.
    kList = 5,
};

enum Status : uint16_t {
    kFound = 0,    // the payload names the cached copy, under <PIOX_LOAD_DIR>/<node>/root
    kMissing = 1,  // the file system has no such file: the loader may report it as usual
    kRefused = 2,  // the server cannot answer (bad request, read error): load as stock
};

}  // namespace piox_load
