// See large_count.h.
#include "large_count.h"

#include "errors.h"

#include <climits>
#include <string>

namespace piox::mpiio {
namespace {

// Elements per block of the derived type: a power of two well under INT_MAX.
constexpr MPI_Count kBlock = MPI_Count(1) << 30;

// count x datatype as one element: `blocks` blocks of kBlock elements, then the
// `rest`, placed where element blocks * kBlock of the original layout starts.
int build(MPI_Count count, MPI_Datatype datatype, MPI_Datatype *out)
{
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    const MPI_Count blocks = count / kBlock, rest = count % kBlock;
    if (blocks > INT_MAX || (extent != 0 && blocks * kBlock > MPI_Count(LLONG_MAX) / extent))
        return error_code(MPI_ERR_COUNT, "count " + std::to_string(count) +
                                             " is past what an MPI_Aint can address");
    MPI_Datatype block = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
    rc = PMPI_Type_contiguous(static_cast<int>(kBlock), datatype, &block);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_contiguous(static_cast<int>(blocks), block, &whole);
    if (rc == MPI_SUCCESS && rest > 0) {
        const int lengths[2] = {1, static_cast<int>(rest)};
        const MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(blocks * kBlock) * extent};
        MPI_Datatype parts[2] = {whole, datatype};
        rc = PMPI_Type_create_struct(2, lengths, displacements, parts, out);
        PMPI_Type_free(&whole);
    } else if (rc == MPI_SUCCESS) {
        *out = whole;
    }
    if (block != MPI_DATATYPE_NULL)
        PMPI_Type_free(&block);
    return rc == MPI_SUCCESS ? PMPI_Type_commit(out) : rc;
}

}  // namespace

LargeCount::LargeCount(MPI_Count *count, MPI_Datatype *datatype)
{
    if (*count <= INT_MAX)
        return;
    error_ = build(*count, *datatype, &derived_);
    if (error_ != MPI_SUCCESS)
        return;
    *count = 1;
    *datatype = derived_;
}

LargeCount::~LargeCount()
{
    if (derived_ != MPI_DATATYPE_NULL)
        PMPI_Type_free(&derived_);
}

}  // namespace piox::mpiio
