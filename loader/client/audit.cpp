// audit.cpp - the rtld-audit callbacks (LD_AUDIT=libpiox_load_audit.so): each library
// the loader looks for is resolved by the node's load server and loaded from its
// node-local mirror of the file system (loader/NOTES.md §7).
//
// Built freestanding, with no DT_NEEDED at all: a client linked to libc would cost
// every process an unaudited search of the application's library paths just to load
// itself (NOTES §1.9). So: raw system calls, no constructors, no malloc.
//
// No locking: the loader calls these callbacks with its own lock held, one at a
// time, so the statics below are never used by two threads at once.
#include "ancestry.h"
#include "files.h"
#include "paths.h"
#include "programs.h"
#include "relocation.h"
#include "session.h"
#include "symbols.h"

#include <link.h>
#include <stdint.h>

namespace piox_load {

Session session;  // files.cpp's wrappers use it too

namespace {

// The current search is for a library the server found nowhere: the loader's own
// candidates in the directories the server searched then go to a path that never
// exists, node-local, so that its error message stays glibc's own and the shared
// file system is not touched.
bool search_is_for_missing = false;

PathText origin;  // scratch for one open_by_path; static, off the loader's stack
PathText expanded;
PathText absolute;

// The original path of the object behind the cookie ("" for the executable), or
// nullptr when la_objopen has not seen it.
const char *requester_of(uintptr_t *cookie)
{
    const link_map *map = reinterpret_cast<const link_map *>(*cookie);
    if (!map)
        return nullptr;
    return original_path(map->l_name ? map->l_name : "", session.settings().mirror_root);
}

// The original paths of the requester's loaders that have a DT_RPATH, nearest first,
// up to (not including) the executable: the RPATH chain of the requester's search.
PayloadText ancestors;
void collect_ancestors(const link_map *requester)
{
    ancestors.clear();
    int depth = 0;
    for (const link_map *l = rpath_loader_of(requester); l && depth < 256; l = rpath_loader_of(l), ++depth)
        ancestors.append_field(original_path(l->l_name, session.settings().mirror_root));
}

// A bare name, searched as the requester's search would find it.
const char *resolve_by_name(const char *name, const char *requester, const link_map *map)
{
    const char *mirror_path = nullptr;
    collect_ancestors(map);
    if (ancestors.overflowed())
        return name;  // too deep to tell the server: the loader searches itself
    switch (session.resolve(name, requester, ancestors.c_str(), ancestors.size(), &mirror_path)) {
    case Answer::kFound:
        return mirror_path;
    case Answer::kMissing:
        search_is_for_missing = true;
        return name;
    case Answer::kPassThrough:
        break;
    }
    return name;
}

// A name with '/': the file it names, after $ORIGIN and the current directory. A
// missing file gets its name back unchanged, so that the loader's message is exact.
const char *open_by_path(const char *name, const char *requester)
{
    const char *path = name;
    if (contains(name, '$')) {
        origin.clear();
        const char *origin_of = *requester ? requester : session.settings().executable;
        if (!append_origin_of(origin_of, &origin) || origin.overflowed())
            return name;
        expanded.clear();
        if (expand_origin(name, origin.c_str(), &expanded) != Expansion::kExpanded)
            return name;  // $LIB, $PLATFORM...: the loader expands those itself
        path = expanded.c_str();
    }
    absolute.clear();
    if (!append_absolute(path, &absolute) || absolute.overflowed())
        return name;
    const char *mirror_path = nullptr;
    const char *original = original_path(absolute.c_str(), session.settings().mirror_root);
    return session.open(original, &mirror_path) == Answer::kFound ? mirror_path : name;
}

// A candidate of the loader's own search (after a name went back unchanged at ORIG):
// - inside the mirror (a run path with $ORIGIN of an object loaded from it): the
//   file it stands for, served, or a path that never exists; the mirror holds only
//   what was served, so the candidate itself may be missing there but not on the
//   file system;
// - for a missing library, in a directory the server searched: a path that never
//   exists, so the file system is not asked again;
// - else the candidate itself.
const char *candidate(const char *name)
{
    const char *original = original_path(name, session.settings().mirror_root);
    if (original != name) {
        const char *mirror_path = nullptr;
        switch (session.open(original, &mirror_path)) {
        case Answer::kFound:
            return mirror_path;
        case Answer::kMissing:
            return session.settings().never_existing;
        case Answer::kPassThrough:
            return name;
        }
    }
    if (!search_is_for_missing)
        return name;
    size_t slash = 0;
    for (size_t i = 0; original[i]; i++)
        if (original[i] == '/')
            slash = i;
    size_t dir_length = slash == 0 ? 1 : slash;  // "/libx.so" lies in "/"
    return session.searched(original, dir_length) ? session.settings().never_existing : name;
}

}  // namespace

}  // namespace piox_load

using namespace piox_load;

#define PIOX_AUDIT_EXPORT extern "C" __attribute__((visibility("default")))

PIOX_AUDIT_EXPORT unsigned int la_version(unsigned int version)
{
    if (!session.start())
        return 0;  // the loader drops the auditor: the process loads as stock (NOTES §1.1)
    if (session.settings().executable_is_copy)
        show_original_execfn(session.settings().mirror_root);
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

// libc, by the name it was opened under (its own or the mirror's copy).
static bool is_libc(const link_map *map)
{
    const char *name = map->l_name ? map->l_name : "";
    size_t n = length_of(name), suffix = length_of("/libc.so.6");
    return n >= suffix && starts_with(name + n - suffix, "/libc.so.6");
}

// An object loaded from the mirror takes its original's name, in place (the original
// is the tail of the mirror path; glibc frees l_name at dlclose, so the pointer stays
// its own). dladdr, dl_iterate_phdr and debuggers then name the file the program
// asked for, and a library that finds its data beside itself through dladdr finds
// it there, not in the mirror. $ORIGIN stays the copy's: glibc took it from the real
// name when it made the object (l_origin), and candidate() serves what it finds.
static void name_as_original(link_map *map)
{
    if (map->l_name && session.active())
        make_original(map->l_name, session.settings().mirror_root);
}

PIOX_AUDIT_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t, uintptr_t *cookie)
{
    *cookie = reinterpret_cast<uintptr_t>(map);  // la_objsearch's requester (NOTES §1.8)
    name_as_original(map);
    note_opened(map);
    bool libc = is_libc(map);
    if (libc)
        note_libc(map);
    // Bindings to libc's functions, only when wrappers are wanted (files.h,
    // programs.h): otherwise la_symbind64 is never called and costs nothing.
    if (!wrappers_wanted() && !programs_relocated())
        return 0;
    return LA_FLG_BINDFROM | (libc ? LA_FLG_BINDTO : 0);
}

PIOX_AUDIT_EXPORT uintptr_t la_symbind64(Elf64_Sym *symbol, unsigned int, uintptr_t *, uintptr_t *,
                                         unsigned int *, const char *name)
{
    uintptr_t original = symbol->st_value;
    uintptr_t program_function = bind_program_function(name, original);
    return program_function != original ? program_function : bind_file_function(name, original);
}

// Never returns NULL: the loader would lose the library's name or, for a candidate,
// skip the rest of its search list (NOTES §1.4).
PIOX_AUDIT_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    const char *answer = name;
    if (!session.active()) {
        // pass through
    } else if (flag != LA_SER_ORIG) {
        // A candidate of the loader's own search: only after a name went back unchanged.
        answer = candidate(name);
    } else {
        search_is_for_missing = false;
        const link_map *map = reinterpret_cast<const link_map *>(*cookie);
        note_search_by(map);
        const char *requester = requester_of(cookie);
        if (requester)
            answer = contains(name, '/') ? open_by_path(name, requester)
                                         : resolve_by_name(name, requester, map);
    }
    return const_cast<char *>(answer);
}
