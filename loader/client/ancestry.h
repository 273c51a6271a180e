// ancestry.h - which object made the loader load which: glibc's l_loader, which the
// audit interface does not show. A library's DT_RPATH search goes up this chain
// (the requester, the object that loaded it, and so on to the executable), so the
// server needs it to replay the search (protocol.h, kResolve).
//
// The loader asks la_objsearch for a name on behalf of a requester (its cookie), then
// maps the object it found and calls la_objopen for it: the requester of the last
// search is the new object's loader. Called under the loader's lock.
#pragma once

#include <link.h>

namespace piox_load {

void note_search_by(const link_map *requester);
void note_opened(const link_map *object);
// The nearest of `object`'s loaders (its loader, that one's, and so on, short of the
// executable) with a DT_RPATH that glibc uses, or nullptr. Kept when `object` is
// opened, so that a search walks the RPATH chain, not every loader up to the top
// (a chain of L libraries would cost each search up to L steps).
const link_map *rpath_loader_of(const link_map *object);

}  // namespace piox_load
