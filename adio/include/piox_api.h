/* piox_api.h - marks the functions libpiox exports; everything else is hidden
 * (the libraries are built with -fvisibility=hidden), so that piox's internals can
 * never clash with an application's symbols. */
#ifndef PIOX_API_H
#define PIOX_API_H
#define PIOX_API __attribute__((visibility("default")))
#endif
