/* epoch.h - the one instant every Themis machine and base image starts
 * at, 2026-01-01T00:00:00Z: the machines' clocks at power-on (explore,
 * corrupt, profile, clock) and the clock mkfs runs under when the base
 * images are made (src/fs/fs.h's FS_MKFS_ENV). One number, so that a
 * freshly made image and a freshly booted machine agree on "now". */
#ifndef THEMIS_UTIL_EPOCH_H
#define THEMIS_UTIL_EPOCH_H

/* Seconds since 1970: a plain literal, which THEMIS_EPOCH_STR spells. */
#define THEMIS_EPOCH 1767225600

#define THEMIS_EPOCH_STR_(x)  #x
#define THEMIS_EPOCH_STR_X(x) THEMIS_EPOCH_STR_(x)
#define THEMIS_EPOCH_STR      THEMIS_EPOCH_STR_X(THEMIS_EPOCH) /* "1767225600" */

#endif
