/*
 * piox_log.h - PIOX_DEBUG logging shared by every part of piox.
 *
 * piox_debug_enabled() is true when PIOX_DEBUG is set to a non-empty value
 * other than "0". Messages go to stderr, one line each, prefixed with
 * "piox[<world rank>]:".
 */
#ifndef PIOX_LOG_H
#define PIOX_LOG_H

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

PIOX_API int piox_debug_enabled(void);
PIOX_API void piox_debug(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Always printed: for warnings the user must see. */
PIOX_API void piox_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif /* PIOX_LOG_H */
