// MPI-IO error reporting: see errors.h.
#include "errors.h"

#include <map>
#include <mutex>

namespace piox::mpiio {
namespace {

// MPI offers a limited number of user error codes; messages that repeat (the same
// cause on the same file) share one.
constexpr size_t kMaxCachedMessages = 256;

std::mutex cache_mutex;
std::map<std::string, int> cached_codes;

}  // namespace

int error_code(int error_class, const std::string &message)
{
    const std::string text = "piox: " + message;
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto found = cached_codes.find(text);
    if (found != cached_codes.end())
        return found->second;
    if (cached_codes.size() >= kMaxCachedMessages)
        return error_class;
    int code = error_class;
    if (PMPI_Add_error_code(error_class, &code) != MPI_SUCCESS)
        return error_class;
    PMPI_Add_error_string(code, text.c_str());
    cached_codes.emplace(text, code);
    return code;
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

int raise_error(MPI_File fh, int error_class, const std::string &message)
{
    return raise_code(fh, error_code(error_class, message));
}

}  // namespace piox::mpiio
