// Ordered-mode accesses: one collective scan on the shared pointer gives each
// process its offset (rank order) and advances the pointer before anyone returns;
// then each process moves its own data. By default the data moves with the
// independent explicit-offset routines: the MPI library's collective I/O would add
// collectives that busy-wait, which is what makes ROMIO's ordered mode slow when
// ranks outnumber cores. The hint piox_ordered_io=collective selects
// MPI_File_{read,write}_at_all instead.
#include "access_check.h"
#include "errors.h"
#include "sfp_file.h"
#include "sfp_transfer.h"

namespace piox::mpiio {
namespace {

// In atomic mode the data moves independently, under locks: a process holding
// locks must not wait in a collective for one that waits for them.
bool collective_transfer(const SfpFile &file)
{
    return file.options.collective_ordered_io && !in_atomic_mode(file);
}

// The collective step shared by every ordered routine. Every process takes part,
// even one whose own arguments are bad (it contributes nothing), so that nobody is
// left waiting; *local_error then holds its error code.
int claim_ordered(SfpFile &file, const char *routine, Direction direction, int count,
                  MPI_Datatype datatype, MPI_Offset *offset, int *local_error)
{
    MPI_Offset etypes = 0;
    *local_error = check_access(file, routine, direction, count, datatype, &etypes);
    if (*local_error == MPI_SUCCESS && file.split != SplitOrdered::none)
        *local_error = error_code(MPI_ERR_IO, std::string(routine) + " on '" + file.filename +
                                                  "': a split collective is outstanding");
    return piox_sfp_ordered(file.pointer, *local_error == MPI_SUCCESS ? etypes : 0, offset);
}

// After a failed claim: the process's own error first, else the collective's.
int report_claim_failure(const SfpFile &file, int rc, int local_error)
{
    return raise_code(file.fh, local_error != MPI_SUCCESS ? local_error : rc);
}

template <auto Independent, auto Locked, auto Collective, typename Buffer>
int ordered_access(SfpFile &file, const char *routine, Direction direction, Buffer buf, int count,
                   MPI_Datatype datatype, MPI_Status *status)
{
    MPI_Offset offset = 0;
    int local_error = MPI_SUCCESS;
    int rc = claim_ordered(file, routine, direction, count, datatype, &offset, &local_error);
    if (collective_transfer(file)) {
        // A collective transfer needs every process, including one that will fail.
        const bool skip = rc != MPI_SUCCESS || local_error != MPI_SUCCESS;
        MPI_Status ignored;
        int io = Collective(file.fh, offset, buf, skip ? 0 : count, skip ? MPI_BYTE : datatype,
                            skip ? &ignored : status);
        if (!skip)
            return io;
    }
    if (rc != MPI_SUCCESS || local_error != MPI_SUCCESS)
        return report_claim_failure(file, rc, local_error);
    return transfer_at<Independent, Locked>(file, offset, buf, count, datatype, status);
}

// Split collectives. The begin call claims the offset and moves the data at once
// (MPI lets begin do all the work); the end call hands back the stored status. A
// nonblocking transfer would gain nothing here: ROMIO completes MPI_File_iwrite_at
// through POSIX aio, whose completion MPI_Wait polls in a busy loop.
template <auto Independent, auto Locked, auto CollectiveBegin, typename Buffer>
int ordered_begin(SfpFile &file, const char *routine, Direction direction, Buffer buf, int count,
                  MPI_Datatype datatype)
{
    MPI_Offset offset = 0;
    int local_error = MPI_SUCCESS;
    int rc = claim_ordered(file, routine, direction, count, datatype, &offset, &local_error);
    const SplitOrdered started = direction == Direction::read ? SplitOrdered::read
                                                              : SplitOrdered::write;
    if (collective_transfer(file)) {
        const bool skip = rc != MPI_SUCCESS || local_error != MPI_SUCCESS;
        // A process that failed still joins the collective, unless another split
        // collective is what it failed on.
        if (!skip || file.split == SplitOrdered::none) {
            int io = CollectiveBegin(file.fh, offset, buf, skip ? 0 : count,
                                     skip ? MPI_BYTE : datatype);
            if (io == MPI_SUCCESS)
                file.split = started;
            if (!skip)
                return io;
        }
    }
    if (rc != MPI_SUCCESS || local_error != MPI_SUCCESS)
        return report_claim_failure(file, rc, local_error);
    rc = transfer_at<Independent, Locked>(file, offset, buf, count, datatype,
                                          &file.split_status);
    if (rc == MPI_SUCCESS)
        file.split = started;
    return rc;
}

template <auto CollectiveEnd, typename Buffer>
int ordered_end(SfpFile &file, const char *routine, SplitOrdered expected, Buffer buf,
                MPI_Status *status)
{
    if (file.split != expected)
        return raise_error(file.fh, MPI_ERR_IO,
                           std::string(routine) + " on '" + file.filename +
                               "': no matching begin call is outstanding");
    file.split = SplitOrdered::none;
    if (collective_transfer(file))
        return CollectiveEnd(file.fh, buf, status);
    if (status != MPI_STATUS_IGNORE)
        *status = file.split_status;
    return MPI_SUCCESS;
}

}  // namespace

int File_read_ordered(SfpFile &file, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return ordered_access<PMPI_File_read_at, File_read_at, PMPI_File_read_at_all>(
        file, "MPI_File_read_ordered", Direction::read, buf, count, datatype, status);
}

int File_write_ordered(SfpFile &file, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return ordered_access<PMPI_File_write_at, File_write_at, PMPI_File_write_at_all>(
        file, "MPI_File_write_ordered", Direction::write, buf, count, datatype, status);
}

int File_read_ordered_begin(SfpFile &file, void *buf, int count, MPI_Datatype datatype)
{
    return ordered_begin<PMPI_File_read_at, File_read_at, PMPI_File_read_at_all_begin>(
        file, "MPI_File_read_ordered_begin", Direction::read, buf, count, datatype);
}

int File_write_ordered_begin(SfpFile &file, const void *buf, int count, MPI_Datatype datatype)
{
    return ordered_begin<PMPI_File_write_at, File_write_at, PMPI_File_write_at_all_begin>(
        file, "MPI_File_write_ordered_begin", Direction::write, buf, count, datatype);
}

int File_read_ordered_end(SfpFile &file, void *buf, MPI_Status *status)
{
    return ordered_end<PMPI_File_read_at_all_end>(file, "MPI_File_read_ordered_end",
                                                  SplitOrdered::read, buf, status);
}

int File_write_ordered_end(SfpFile &file, const void *buf, MPI_Status *status)
{
    return ordered_end<PMPI_File_write_at_all_end>(file, "MPI_File_write_ordered_end",
                                                   SplitOrdered::write, buf, status);
}

}  // namespace piox::mpiio
