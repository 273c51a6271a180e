// See view_agreement.h.
#include "view_agreement.h"

#include "errors.h"

#include <cctype>
#include <cstdint>

namespace piox::mpiio {
namespace {

// FNV-1a of the name, case folded as ROMIO accepts "native" and "NATIVE", kept to
// 62 bits so that its negation below cannot overflow.
int64_t datarep_hash(const char *datarep)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = datarep; *c != '\0'; c++)
        h = (h ^ static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(*c)))) * 1099511628211ull;
    return static_cast<int64_t>(h >> 2);
}

}  // namespace

int check_view_agrees(const OpenFile &file, MPI_Datatype etype, const char *datarep, bool set_here)
{
    if (file.comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    // The extent in the file's representation: the view just set names it.
    MPI_Aint extent = 0;
    bool known = set_here && datarep != nullptr &&
                 PMPI_File_get_type_extent(file.fh, etype, &extent) == MPI_SUCCESS;
    int64_t hash = known ? datarep_hash(datarep) : 0;
    // {any process without its values, extent, -extent, hash, -hash}: max and min at once.
    int64_t values[5] = {known ? 0 : 1, extent, -static_cast<int64_t>(extent), hash, -hash};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, values, 5, MPI_INT64_T, MPI_MAX, file.comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (values[0] != 0 || (values[1] == -values[2] && values[3] == -values[4]))
        return MPI_SUCCESS;
    const char *what = values[3] != -values[4] ? "the data representation" : "the etype's extent";
    return error_code(MPI_ERR_NOT_SAME,
                       "MPI_File_set_view on '" + file.filename + "': " + what +
                           " differs between processes (MPI-3.1 13.3: it must be the same on all)");
}

}  // namespace piox::mpiio
