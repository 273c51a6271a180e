// MPI-IO error reporting: see errors.h.
#include "errors.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace piox::mpiio {
namespace {

// MPICH cannot attach a message to a new code of a predefined class through
// MPI_Add_error_code (MPI_Error_string then prints an unrelated message), so on
// MPICH use its own error-stack constructor, as ROMIO does; it is found at run time
// so that the same source serves other MPIs.
using MpichCreateCode = int (*)(int lastcode, int fatal, const char fcname[], int line,
                                int error_class, const char generic_msg[],
                                const char specific_msg[], ...);

MpichCreateCode mpich_create_code()
{
    static const auto found =
        reinterpret_cast<MpichCreateCode>(dlsym(RTLD_DEFAULT, "MPIR_Err_create_code"));
    return found;
}

// Elsewhere, user codes from MPI_Add_error_code. MPI offers a limited number of
// them; messages that repeat (the same cause on the same file) share one.
constexpr size_t kMaxCachedMessages = 256;

std::mutex cache_mutex;
std::map<std::string, int> cached_codes;

int added_error_code(int error_class, const std::string &text)
{
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto found = cached_codes.find(text);
    if (found != cached_codes.end())
        return found->second;
    if (cached_codes.size() >= kMaxCachedMessages)
        return error_class;
    int code = error_class, check = -1;
    if (PMPI_Add_error_code(error_class, &code) != MPI_SUCCESS ||
        PMPI_Error_class(code, &check) != MPI_SUCCESS || check != error_class)
        return error_class;
    PMPI_Add_error_string(code, text.c_str());
    cached_codes.emplace(text, code);
    return code;
}

}  // namespace

int error_code(int error_class, const std::string &message, int cause)
{
    std::string text = "piox: " + message;
    // MPICH's stack prints the cause's own lines below ours.
    if (MpichCreateCode create = mpich_create_code())
        return create(cause, /* recoverable */ 0, "piox", 0, error_class, "**io", "%s", text.c_str());
    if (cause != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING];
        int length = 0;
        if (PMPI_Error_string(cause, why, &length) == MPI_SUCCESS)
            text += std::string(": ") + why;
    }
    return added_error_code(error_class, text);
}

int raise_code(MPI_File fh, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    if (fh == MPI_FILE_NULL) {
        // MPI_File_call_errhandler rejects MPI_FILE_NULL; apply the default file
        // error handler by hand for the two predefined cases.
        MPI_Errhandler handler = MPI_ERRORS_RETURN;
        PMPI_File_get_errhandler(MPI_FILE_NULL, &handler);
        if (handler == MPI_ERRORS_ARE_FATAL)
            PMPI_Abort(MPI_COMM_WORLD, code);
        if (handler != MPI_ERRORS_RETURN && handler != MPI_ERRORS_ARE_FATAL)
            PMPI_Errhandler_free(&handler);  // drop the reference the query took
        return code;
    }
    PMPI_File_call_errhandler(fh, code);
    return code;
}

int raise_error(MPI_File fh, int error_class, const std::string &message, int cause)
{
    return raise_code(fh, error_code(error_class, message, cause));
}

}  // namespace piox::mpiio
