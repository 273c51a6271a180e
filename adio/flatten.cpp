// Datatype -> TypeMap (flatten.h). Each combiner family is decoded into the
// blocks it places (named and F90 types are leaves; vector, indexed and struct
// are blocks of copies of a child; subarray and darray are grids, flatten_grid.cpp).
#include "flatten.h"

#include "flatten_grid.h"

#include <cstddef>

// The combiners of MPI-1's MPI_Type_hvector, _hindexed and _struct: MPICH still
// reports them; Open MPI removed them with MPI-3 (their names do not compile).
#ifdef MPICH_VERSION
#define PIOX_MPI1_CASE(combiner) case combiner:
#else
#define PIOX_MPI1_CASE(combiner)
#endif

namespace piox::adio {

namespace {

struct Envelope {
    int nints = 0, naddrs = 0, ntypes = 0, combiner = MPI_COMBINER_NAMED;
};

int envelope_of(MPI_Datatype type, Envelope *env)
{
#if MPI_VERSION >= 4
    // A type built with large counts (MPI_Type_*_c) makes the int-count
    // introspection calls fail through MPI_COMM_WORLD's handler, fatal by default.
    // Its layout is not decoded yet: refuse it before asking.
    MPI_Count nints = 0, naddrs = 0, ncounts = 0, ntypes = 0;
    int rc = PMPI_Type_get_envelope_c(type, &nints, &naddrs, &ncounts, &ntypes, &env->combiner);
    if (rc != MPI_SUCCESS || ncounts > 0)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_TYPE;
    env->nints = static_cast<int>(nints);
    env->naddrs = static_cast<int>(naddrs);
    env->ntypes = static_cast<int>(ntypes);
    return MPI_SUCCESS;
#else
    return PMPI_Type_get_envelope(type, &env->nints, &env->naddrs, &env->ntypes, &env->combiner);
#endif
}

bool is_named(MPI_Datatype type)
{
    Envelope env;
    return envelope_of(type, &env) == MPI_SUCCESS && env.combiner == MPI_COMBINER_NAMED;
}

// The constructor arguments of a derived type. The derived types among them are
// new references MPI expects us to free; named types must not be freed.
class Contents {
public:
    Contents() = default;
    Contents(const Contents &) = delete;
    Contents &operator=(const Contents &) = delete;
    ~Contents()
    {
        for (MPI_Datatype &t : types)
            if (t != MPI_DATATYPE_NULL && !is_named(t))
                PMPI_Type_free(&t);
    }
    int load(MPI_Datatype type, const Envelope &env)
    {
        ints.resize(env.nints);
        addrs.resize(env.naddrs);
        types.assign(env.ntypes, MPI_DATATYPE_NULL);
        return PMPI_Type_get_contents(type, env.nints, env.naddrs, env.ntypes, ints.data(),
                                      addrs.data(), types.data());
    }

    std::vector<int> ints;
    std::vector<MPI_Aint> addrs;
    std::vector<MPI_Datatype> types;
};

int extent_of(MPI_Datatype type, MPI_Offset *extent)
{
    MPI_Aint lb = 0, ext = 0;
    int rc = PMPI_Type_get_extent(type, &lb, &ext);
    *extent = ext;
    return rc;
}

// Where the int of MPI's {T, int} pair types sits: MPICH and Open MPI lay them
// out as the C struct does, so e.g. MPI_SHORT_INT has a hole after the short.
template <typename T>
void append_pair(TypeMap *map)
{
    struct Pair {
        T first;
        int second;
    };
    map->append(0, sizeof(T));
    map->append(offsetof(Pair, second), sizeof(int));
}

int flatten_named(MPI_Datatype type, TypeMap *map)
{
    MPI_Count size = 0;
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_size_x(type, &size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent(type, &lb, &extent);
    if (rc != MPI_SUCCESS || size == 0)
        return rc;
    if (size == extent) {
        map->append(lb, size);
        return MPI_SUCCESS;
    }
    // Named types with holes: only the MINLOC/MAXLOC pairs.
    if (type == MPI_FLOAT_INT)
        append_pair<float>(map);
    else if (type == MPI_DOUBLE_INT)
        append_pair<double>(map);
    else if (type == MPI_LONG_INT)
        append_pair<long>(map);
    else if (type == MPI_SHORT_INT)
        append_pair<short>(map);
    else if (type == MPI_LONG_DOUBLE_INT)
        append_pair<long double>(map);
    else
        return MPI_ERR_TYPE;  // a layout we cannot know: refuse rather than guess
    return map->size() == size ? MPI_SUCCESS : MPI_ERR_TYPE;
}

// `count` copies of a child type laid end to end from byte displacement `disp`.
struct Block {
    MPI_Offset disp;
    MPI_Offset count;
};

// The blocks of the contiguous, vector and indexed families. Displacements and
// strides are in child extents, or in bytes for the h-variants.
int blocks_of(int combiner, const Contents &c, MPI_Offset extent, std::vector<Block> *blocks)
{
    const std::vector<int> &in = c.ints;
    const std::vector<MPI_Aint> &ad = c.addrs;
    const size_t count = in.empty() || in[0] < 0 ? 0 : static_cast<size_t>(in[0]);
    auto shape_is = [&](size_t nints, size_t naddrs) {
        return !in.empty() && in[0] >= 0 && in.size() == nints && ad.size() == naddrs;
    };
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        if (!shape_is(1, 0))
            return MPI_ERR_TYPE;
        blocks->push_back({0, in[0]});
        return MPI_SUCCESS;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    PIOX_MPI1_CASE(MPI_COMBINER_HVECTOR_INTEGER) {
        const bool in_bytes = combiner != MPI_COMBINER_VECTOR;
        if (!shape_is(in_bytes ? 2 : 3, in_bytes ? 1 : 0))
            return MPI_ERR_TYPE;
        const MPI_Offset stride = in_bytes ? ad[0] : in[2] * extent;
        for (size_t i = 0; i < count; ++i)
            blocks->push_back({static_cast<MPI_Offset>(i) * stride, in[1]});
        return MPI_SUCCESS;
    }
    case MPI_COMBINER_INDEXED:
        if (!shape_is(2 * count + 1, 0))
            return MPI_ERR_TYPE;
        for (size_t i = 0; i < count; ++i)
            blocks->push_back({in[1 + count + i] * extent, in[1 + i]});
        return MPI_SUCCESS;
    case MPI_COMBINER_HINDEXED:
    PIOX_MPI1_CASE(MPI_COMBINER_HINDEXED_INTEGER)
        if (!shape_is(count + 1, count))
            return MPI_ERR_TYPE;
        for (size_t i = 0; i < count; ++i)
            blocks->push_back({ad[i], in[1 + i]});
        return MPI_SUCCESS;
    case MPI_COMBINER_INDEXED_BLOCK:
        if (!shape_is(count + 2, 0))
            return MPI_ERR_TYPE;
        for (size_t i = 0; i < count; ++i)
            blocks->push_back({in[2 + i] * extent, in[1]});
        return MPI_SUCCESS;
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (!shape_is(2, count))
            return MPI_ERR_TYPE;
        for (size_t i = 0; i < count; ++i)
            blocks->push_back({ad[i], in[1]});
        return MPI_SUCCESS;
    default:
        return MPI_ERR_TYPE;
    }
}

// Lays out blocks of copies of `child`.
int place_blocks(MPI_Datatype child, const std::vector<Block> &blocks, TypeMap *out)
{
    TypeMap child_map;
    MPI_Offset extent = 0;
    int rc = flatten_datatype(child, &child_map);
    if (rc == MPI_SUCCESS)
        rc = extent_of(child, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    for (const Block &b : blocks) {
        if (b.count < 0)
            return MPI_ERR_TYPE;
        out->append_copies(child_map, extent, b.count, b.disp);
    }
    return MPI_SUCCESS;
}

int flatten_struct(const Contents &c, TypeMap *map)
{
    const size_t count = c.ints.empty() || c.ints[0] < 0 ? 0 : static_cast<size_t>(c.ints[0]);
    if (c.ints.size() != count + 1 || c.addrs.size() != count || c.types.size() != count)
        return MPI_ERR_TYPE;
    for (size_t i = 0; i < count; ++i) {
        int rc = place_blocks(c.types[i], {{c.addrs[i], c.ints[1 + i]}}, map);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int flatten_grid(int combiner, const Contents &c, TypeMap *map)
{
    Grid grid;
    int rc = combiner == MPI_COMBINER_SUBARRAY ? subarray_grid(c.ints, &grid)
                                               : darray_grid(c.ints, &grid);
    TypeMap element;
    MPI_Offset extent = 0;
    if (rc == MPI_SUCCESS)
        rc = flatten_datatype(c.types[0], &element);
    if (rc == MPI_SUCCESS)
        rc = extent_of(c.types[0], &extent);
    if (rc == MPI_SUCCESS)
        place_grid(grid, element, extent, map);
    return rc;
}

}  // namespace

int flatten_datatype(MPI_Datatype type, TypeMap *map)
{
    Envelope env;
    int rc = envelope_of(type, &env);
    if (rc != MPI_SUCCESS)
        return rc;
    switch (env.combiner) {
    case MPI_COMBINER_NAMED:
        return flatten_named(type, map);
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
    case MPI_COMBINER_F90_INTEGER: {  // parameterized predefined types: dense
        MPI_Count size = 0;
        rc = PMPI_Type_size_x(type, &size);
        map->append(0, size);
        return rc;
    }
    default:
        break;
    }

    Contents c;
    rc = c.load(type, env);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c.types.empty())
        return MPI_ERR_TYPE;
    switch (env.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // same typemap; only the bounds differ
        return flatten_datatype(c.types[0], map);
    case MPI_COMBINER_STRUCT:
    PIOX_MPI1_CASE(MPI_COMBINER_STRUCT_INTEGER)
        return flatten_struct(c, map);
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        return flatten_grid(env.combiner, c, map);
    default: {
        MPI_Offset extent = 0;
        std::vector<Block> blocks;
        rc = extent_of(c.types[0], &extent);
        if (rc == MPI_SUCCESS)
            rc = blocks_of(env.combiner, c, extent, &blocks);
        if (rc == MPI_SUCCESS)
            rc = place_blocks(c.types[0], blocks, map);
        return rc;
    }
    }
}

}  // namespace piox::adio
