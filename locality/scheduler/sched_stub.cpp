// Placeholder until the scheduler lands.
#include "dli.h"
extern "C" {
int DLI_Sched_static(const DLI_Chunk_list *, int, const char **, const double *, uint64_t,
                     DLI_Assignment **) { return DLI_ERR_UNSUPPORTED; }
int DLI_Sched_create(const DLI_Chunk_list *, int, const char **, uint64_t, DLI_Sched *) {
    return DLI_ERR_UNSUPPORTED;
}
int DLI_Sched_next(DLI_Sched, int, int *) { return DLI_ERR_UNSUPPORTED; }
int DLI_Sched_complete(DLI_Sched, int, int, double) { return DLI_ERR_UNSUPPORTED; }
int DLI_Sched_free(DLI_Sched *) { return DLI_ERR_UNSUPPORTED; }
}
