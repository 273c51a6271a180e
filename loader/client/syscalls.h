// syscalls.h - the Linux x86-64 system calls the audit client (and piox-load-exec)
// makes, raw.
//
// The client links no C library (see audit.cpp), so it calls the kernel itself. Every
// call returns what the kernel does: the result, or -errno on failure. The structures
// are the kernel's, declared here because the C library's headers are not ours to use.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace piox_load::sys {

enum Number : long {
    kRead = 0, kWrite = 1, kClose = 3, kFstat = 5, kPoll = 7, kMmap = 9, kMunmap = 11, kMremap = 25, kGetpid = 39,
    kSocket = 41, kConnect = 42, kSendto = 44, kRecvfrom = 45, kGetpeername = 52, kGetsockopt = 55, kUname = 63, kFcntl = 72,
    kSchedYield = 24, kExecve = 59, kGetcwd = 79, kExitGroup = 231, kReadlink = 89, kClockGettime = 228, kOpenat = 257, kNewfstatat = 262,
};

constexpr int kENOENT = 2, kEINTR = 4, kENOEXEC = 8, kEAGAIN = 11, kENOMEM = 12, kEACCES = 13, kENODEV = 19,
              kENOTDIR = 20, kETIMEDOUT = 110, kEINPROGRESS = 115, kESTALE = 116;
constexpr int kAtCwd = -100, kOpenReadOnly = 0, kOpenCloseOnExec = 02000000;
constexpr int kAfUnix = 1, kSockStream = 1, kSockNonBlock = 04000, kSockCloseOnExec = 02000000;
constexpr int kSolSocket = 1, kSoError = 4, kMsgNoSignal = 0x4000;
constexpr short kPollIn = 0x1, kPollOut = 0x4;
constexpr int kProtReadWrite = 0x1 | 0x2, kMapPrivateAnonymous = 0x02 | 0x20, kMremapMayMove = 1;
constexpr int kClockMonotonic = 1;
constexpr int kStderr = 2;

struct PollFd { int fd; short events; short revents; };
struct SockaddrUn { uint16_t family; char path[108]; };
struct Utsname { char sysname[65], nodename[65], release[65], version[65], machine[65], domain[65]; };
struct Timespec { long seconds; long nanoseconds; };

inline long call(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0,
                 long f = 0)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}

inline long read(int fd, void *buffer, size_t bytes) { return call(kRead, fd, (long)buffer, (long)bytes); }
inline long write(int fd, const void *data, size_t bytes) { return call(kWrite, fd, (long)data, (long)bytes); }
inline long close(int fd) { return call(kClose, fd); }
inline long open_read_only(const char *path)
{
    return call(kOpenat, kAtCwd, (long)path, kOpenReadOnly | kOpenCloseOnExec);
}
inline long poll(PollFd *fds, unsigned long count, int milliseconds)
{
    return call(kPoll, (long)fds, (long)count, milliseconds);
}
// The file's mode (type and permission bits): st_mode of the kernel's x86-64 struct
// stat, 144 bytes, at offset 24.
inline long file_mode(int fd, uint32_t *mode)
{
    unsigned char status[144];
    long result = call(kFstat, fd, (long)status);
    if (result == 0)
        __builtin_memcpy(mode, status + 24, sizeof *mode);
    return result;
}
// Whether `path` exists (0, else -errno), following a symlink at its end when
// `follow`: newfstatat into a struct stat of the kernel's x86-64 size.
inline long exists(const char *path, bool follow)
{
    constexpr long kAtSymlinkNoFollow = 0x100;
    unsigned char status[144];
    return call(kNewfstatat, kAtCwd, (long)path, (long)status, follow ? 0 : kAtSymlinkNoFollow);
}
// A duplicate of `fd` at the lowest free number >= `lowest`, closed on exec
// (fcntl F_DUPFD_CLOEXEC).
inline long duplicate_at_least(int fd, int lowest)
{
    constexpr long kDupFdCloseOnExec = 1030;
    return call(kFcntl, fd, kDupFdCloseOnExec, lowest);
}
inline long getpid() { return call(kGetpid); }
inline long sched_yield() { return call(kSchedYield); }
inline long socket(int domain, int type, int protocol) { return call(kSocket, domain, type, protocol); }
inline long connect(int fd, const void *address, unsigned length)
{
    return call(kConnect, fd, (long)address, length);
}
// send(2) without SIGPIPE: a server that went away must not kill the application.
inline long send(int fd, const void *data, size_t bytes)
{
    return call(kSendto, fd, (long)data, (long)bytes, kMsgNoSignal, 0, 0);
}
inline long receive(int fd, void *buffer, size_t bytes)
{
    return call(kRecvfrom, fd, (long)buffer, (long)bytes, 0, 0, 0);
}
inline long socket_error(int fd, int *error)
{
    unsigned length = sizeof *error;
    return call(kGetsockopt, fd, kSolSocket, kSoError, (long)error, (long)&length);
}
inline long peer_name(int fd, SockaddrUn *address, unsigned *length)
{
    return call(kGetpeername, fd, (long)address, (long)length);
}
inline long uname(Utsname *name) { return call(kUname, (long)name); }
inline long execve(const char *path, char *const *argv, char *const *environment)
{
    return call(kExecve, (long)path, (long)argv, (long)environment);
}
[[noreturn]] inline void exit_group(int status)
{
    call(kExitGroup, status);
    __builtin_unreachable();
}
inline long getcwd(char *buffer, size_t bytes) { return call(kGetcwd, (long)buffer, (long)bytes); }
inline long readlink(const char *path, char *buffer, size_t bytes)
{
    return call(kReadlink, (long)path, (long)buffer, (long)bytes);
}
inline long map_anonymous(size_t bytes)
{
    return call(kMmap, 0, (long)bytes, kProtReadWrite, kMapPrivateAnonymous, -1, 0);
}
inline long remap(void *old_address, size_t old_bytes, size_t new_bytes)
{
    return call(kMremap, (long)old_address, (long)old_bytes, (long)new_bytes, kMremapMayMove);
}
inline long unmap(void *address, size_t bytes) { return call(kMunmap, (long)address, (long)bytes); }
// A failed mmap or mremap returns -errno, which as an address is in the top page.
inline bool mapping_failed(long result) { return result < 0 && result > -4096; }

inline int64_t monotonic_milliseconds()
{
    Timespec now{0, 0};
    call(kClockGettime, kClockMonotonic, (long)&now);
    return int64_t(now.seconds) * 1000 + now.nanoseconds / 1000000;
}

}  // namespace piox_load::sys
