/* disk_wlog.c - the disk's write log (see disk.h): the payloads of the
 * writes the device served, kept so that a crash disk can be assembled in
 * a fork at any point the log still reaches, with any subset of the later
 * writes. This is what the crash lens builds its disks from: Linux's
 * writes since a persistence point are exactly what a power cut may lose,
 * tear or reorder.
 *
 * Entries and payload bytes are numbered for the disk's life (wbase and
 * wbbase are how many were let go), so a fork level remembers plain
 * numbers and its restore is a truncation. Memory is let go from the front
 * only below every number an open level could restore wkeep to: after a
 * restore, every entry a crash disk may go back to is still there. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"

void disk_power(struct disk *d, bool on)
{
	d->powered_off = !on;
}

void disk_wlog_enable(struct disk *d)
{
	if (d->wlog_on)
		return;
	d->wlog_on = true;
	d->wkeep = d->wbase + d->nwlog;
}

static uint64_t wlog_end(const struct disk *d)
{
	return d->wbase + d->nwlog;
}

/* Room for one more entry with `bytes` of payload. 0 or -ENOMEM. */
static int wlog_reserve(struct disk *d, uint64_t bytes)
{
	if (d->nwbytes + bytes > DISK_WLOG_BYTES_MAX)
		return -ENOMEM;
	if (d->nwlog == d->capwlog) {
		uint64_t cap = d->capwlog ? 2 * d->capwlog : 256;
		struct disk_wentry *w = realloc(d->wlog, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		d->wlog = w;
		d->capwlog = cap;
	}
	if (d->nwbytes + bytes > d->capwbytes) {
		uint64_t cap = d->capwbytes ? 2 * d->capwbytes : 1u << 20;
		while (cap < d->nwbytes + bytes)
			cap *= 2;
		uint8_t *b = realloc(d->wbytes, cap);
		if (!b)
			return -ENOMEM;
		d->wbytes = b;
		d->capwbytes = cap;
	}
	return 0;
}

int disk_write_served(struct disk *d, uint64_t sector, const void *buf, uint64_t n)
{
	if (d->powered_off)
		return disk_peek(d, sector, NULL, n);
	if (!d->wlog_on || d->read_only || n == 0)
		return disk_write(d, sector, buf, n);
	uint64_t len = n * DISK_SECTOR_SIZE;
	if (disk_peek(d, sector, NULL, n))
		return -EINVAL;
	if (wlog_reserve(d, 2 * len)) {
		/* The write happens but cannot be undone: no crash disk goes
		 * back past it. */
		d->wlog_lost++;
		d->wkeep = wlog_end(d);
		return disk_write(d, sector, buf, n);
	}
	uint8_t *p = d->wbytes + d->nwbytes;
	disk_peek(d, sector, p, n);
	int rc = disk_write(d, sector, buf, n);
	if (rc)
		return rc;
	memcpy(p + len, buf, len);
	d->wlog[d->nwlog++] = (struct disk_wentry){.sector = sector,
						   .count = (uint32_t)n,
						   .epoch = d->epoch,
						   .req = d->nlog ? d->nlog - 1 : 0,
						   .at = d->wbbase + d->nwbytes};
	d->nwbytes += 2 * len;
	return 0;
}

uint64_t disk_wlog(const struct disk *d, const struct disk_wentry **list, uint64_t *first)
{
	*first = d->wkeep;
	*list = d->wlog + (d->wkeep - d->wbase);
	return wlog_end(d) - d->wkeep;
}

uint64_t disk_wlog_end(const struct disk *d)
{
	return wlog_end(d);
}

const uint8_t *disk_wentry_data(const struct disk *d, const struct disk_wentry *e, bool after)
{
	return d->wbytes + (e->at - d->wbbase) + (after ? e->count * DISK_SECTOR_SIZE : 0);
}

/* Let go of the entries below every number wkeep can come back to. */
static void wlog_compact(struct disk *d)
{
	uint64_t low = d->wkeep;
	for (unsigned l = 1; l <= d->depth; l++)
		if (d->wkeep_start[l] < low)
			low = d->wkeep_start[l];
	uint64_t drop = low - d->wbase;
	if (drop == 0)
		return;
	uint64_t bytes = drop < d->nwlog ? d->wlog[drop].at - d->wbbase : d->nwbytes;
	memmove(d->wlog, d->wlog + drop, (d->nwlog - drop) * sizeof(*d->wlog));
	memmove(d->wbytes, d->wbytes + bytes, d->nwbytes - bytes);
	d->wbase += drop;
	d->nwlog -= drop;
	d->wbbase += bytes;
	d->nwbytes -= bytes;
}

void disk_wlog_keep(struct disk *d, uint64_t first)
{
	if (first > wlog_end(d))
		first = wlog_end(d);
	if (first > d->wkeep)
		d->wkeep = first;
	wlog_compact(d);
}

int disk_crash_assemble(struct disk *d, uint64_t upto, const uint64_t *extra, size_t nextra)
{
	uint64_t end = wlog_end(d);
	if (d->depth == 0 || upto < d->wkeep || upto > end)
		return -EINVAL;
	for (size_t i = 0; i < nextra; i++)
		if (extra[i] < upto || extra[i] >= end)
			return -EINVAL;
	for (uint64_t k = end; k-- > upto;) {
		const struct disk_wentry *e = &d->wlog[k - d->wbase];
		int rc = disk_write(d, e->sector, disk_wentry_data(d, e, false), e->count);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < nextra; i++) {
		const struct disk_wentry *e = &d->wlog[extra[i] - d->wbase];
		int rc = disk_write(d, e->sector, disk_wentry_data(d, e, true), e->count);
		if (rc)
			return rc;
	}
	return 0;
}
