// address.cpp - converting addresses at the API's edge.
#include "address.h"

namespace desync {

bool Address::from(const blockaddr *b, Address *out)
{
    if (!b || !b->dims || b->numdims < 2 || b->numdims > DESYNCH_MAX_DIMS)
        return false;
    out->n = b->numdims;
    for (int i = 0; i < b->numdims; i++)
        out->d[i] = b->dims[i];
    return true;
}

void Address::to(blockaddr *b) const
{
    b->numdims = n;
    for (int i = 0; i < n; i++)
        b->dims[i] = d[i];
}

std::string Address::text() const
{
    std::string s = "(";
    for (int i = 0; i < n; i++)
        s += (i ? ", " : "") + std::to_string(d[i]);
    return s + ")";
}

} // namespace desync
