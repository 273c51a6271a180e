##
## The piox driver (copied into ROMIO's tree by piox's scripts/build-romio).
## Its lock core, libpiox_adio, is linked in through LIBS at configure time.
##

if BUILD_AD_PIOX

noinst_HEADERS += adio/ad_piox/ad_piox.h

romio_other_sources +=          \
    adio/ad_piox/ad_piox.c      \
    adio/ad_piox/ad_piox_open.c \
    adio/ad_piox/ad_piox_lock.c \
    adio/ad_piox/ad_piox_sfp.c \
    adio/ad_piox/ad_piox_strided.c

endif BUILD_AD_PIOX
