// names.cpp - the strings behind PFTW_Error_string and PFTW_Type_name.
#include "pftw.h"

extern "C" const char *PFTW_Error_string(int code) {
    switch (code) {
    case PFTW_SUCCESS: return "success";
    case PFTW_STOPPED: return "the walk was stopped by a visit callback";
    case PFTW_ERR_ARG: return "invalid argument";
    case PFTW_ERR_INFO: return "invalid pftw_* hint value";
    case PFTW_ERR_NOT_SAME: return "ranks passed different roots or hints";
    case PFTW_ERR_THREAD: return "pftw_threads > 1 needs MPI_THREAD_FUNNELED, called from the main thread";
    case PFTW_ERR_MPI: return "an MPI call failed";
    case PFTW_ERR_NOMEM: return "out of memory";
    default: return "unknown pftw error code";
    }
}

extern "C" const char *PFTW_Type_name(PFTW_Type type) {
    switch (type) {
    case PFTW_TYPE_FILE: return "file";
    case PFTW_TYPE_DIR: return "dir";
    case PFTW_TYPE_SYMLINK: return "symlink";
    case PFTW_TYPE_OTHER: return "other";
    default: return "unknown";
    }
}
