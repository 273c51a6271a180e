// See open_file.h.
#include "open_file.h"

#include <cstring>

namespace piox::mpiio {

int amode_for_library(int amode) { return amode & ~(MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL); }

void view_was_set(OpenFile &file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep)
{
    file.native_view = datarep != nullptr && std::strcmp(datarep, "native") == 0;
    file.default_view = file.native_view && disp == 0 && etype == MPI_BYTE && filetype == MPI_BYTE;
    MPI_Count size = 1;
    PMPI_Type_size_x(etype, &size);
    file.etype_size = size > 0 ? size : 1;
    file.position = 0;
    file.library_pointer_in_step = true;  // the library's pointer is 0 too
    if (file.atomic != nullptr)
        view_changed(*file.atomic);
}

}  // namespace piox::mpiio
