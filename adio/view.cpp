// The C ABI of piox_view.h: checks the view's types, flattens the filetype once,
// and maps each access through it into a bounded set of extents.
#include "piox_view.h"

#include "extent_list.h"
#include "flatten.h"
#include "view_map.h"
#include "piox_comm.h"

#include <new>

struct piox_view {
    piox::adio::ViewMap map;
    MPI_Offset etype_size;
};

namespace {

// MPI reports a bad datatype through MPI_COMM_WORLD's error handler, fatal by
// default. MPI_Pack_size checks the handle is valid and committed, and reports on
// the communicator it is given: one of our own, set to return errors.
int check_types_usable(MPI_Datatype etype, MPI_Datatype filetype)
{
    MPI_Comm quiet = MPI_COMM_NULL;
    int rc = piox_comm_dup_private(MPI_COMM_SELF, &quiet);
    if (rc != MPI_SUCCESS)
        return rc;
    int packed = 0;
    bool usable = PMPI_Pack_size(0, etype, quiet, &packed) == MPI_SUCCESS &&
                  PMPI_Pack_size(0, filetype, quiet, &packed) == MPI_SUCCESS;
    PMPI_Comm_free(&quiet);
    return usable ? MPI_SUCCESS : MPI_ERR_TYPE;
}

// Flattens and checks the filetype against the rules of MPI_File_set_view.
int flatten_filetype(MPI_Datatype filetype, MPI_Count etype_size, piox::adio::TypeMap *map,
                     MPI_Offset *extent)
{
    MPI_Count size = 0;
    MPI_Aint lb = 0, ext = 0;
    int rc = PMPI_Type_size_x(filetype, &size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent(filetype, &lb, &ext);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = piox::adio::flatten_datatype(filetype, map);
    if (rc != MPI_SUCCESS)
        return MPI_ERR_TYPE;  // a layout we cannot decode; MPI's own code says little more
    // A filetype holds whole etypes, tiles forward, and never points before disp;
    // and its flattened size must be its size, or the stream map would be wrong.
    if (size <= 0 || size % etype_size != 0 || ext <= 0 || map->min_disp() < 0 ||
        map->size() != size)
        return MPI_ERR_TYPE;
    *extent = ext;
    return MPI_SUCCESS;
}

int create_view(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, piox_view **view)
{
    if (view == nullptr)
        return MPI_ERR_ARG;
    *view = nullptr;
    if (disp < 0)
        return MPI_ERR_ARG;
    int rc = check_types_usable(etype, filetype);
    MPI_Count etype_size = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_size_x(etype, &etype_size);
    if (rc == MPI_SUCCESS && etype_size <= 0)
        rc = MPI_ERR_TYPE;
    piox::adio::TypeMap map;
    MPI_Offset extent = 0;
    if (rc == MPI_SUCCESS)
        rc = flatten_filetype(filetype, etype_size, &map, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    *view = new piox_view{piox::adio::ViewMap(disp, map, extent), etype_size};
    return MPI_SUCCESS;
}

int map_access(const piox_view *view, MPI_Offset offset, MPI_Offset bytes, piox_extent *extents,
               int max_extents, int *count)
{
    if (view == nullptr || extents == nullptr || count == nullptr || max_extents < 1)
        return MPI_ERR_ARG;
    *count = 0;
    MPI_Offset first = 0, end = 0;
    if (offset < 0 || bytes < 0 || __builtin_mul_overflow(offset, view->etype_size, &first) ||
        __builtin_add_overflow(first, bytes, &end))
        return MPI_ERR_ARG;
    piox::adio::BoundedExtentSet set(static_cast<size_t>(max_extents));
    int rc = view->map.map(first, bytes, &set);
    if (rc != MPI_SUCCESS)
        return rc;
    const auto &found = set.finish();
    for (size_t i = 0; i < found.size(); ++i)
        extents[i] = found[i];
    *count = static_cast<int>(found.size());
    return MPI_SUCCESS;
}

}  // namespace

extern "C" int piox_view_create(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                piox_view **view)
{
    try {
        return create_view(disp, etype, filetype, view);
    } catch (const std::bad_alloc &) {
        return MPI_ERR_NO_MEM;
    }
}

extern "C" int piox_view_free(piox_view **view)
{
    if (view == nullptr || *view == nullptr)
        return MPI_ERR_ARG;
    delete *view;
    *view = nullptr;
    return MPI_SUCCESS;
}

extern "C" int piox_view_extents(const piox_view *view, MPI_Offset offset, MPI_Offset bytes,
                                 piox_extent *extents, int max_extents, int *count)
{
    try {
        return map_access(view, offset, bytes, extents, max_extents, count);
    } catch (const std::bad_alloc &) {
        if (count != nullptr)
            *count = 0;
        return MPI_ERR_NO_MEM;
    }
}

extern "C" MPI_Offset piox_view_etype_size(const piox_view *view)
{
    return view == nullptr ? 0 : view->etype_size;
}
