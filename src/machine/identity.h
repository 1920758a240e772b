/* identity.h - what a machine is made of, in one place: the build of
 * themis that runs it and the kernel, initramfs and base images it boots,
 * each known by the XXH3-128 of its content. Three things must agree on it
 * and all three use this one spelling: a trace (replayed later, maybe by
 * another build), a snapshot (loaded only by the build that saved it, over
 * the same base images) and a shared run (a worker joins only if its
 * machine is the coordinator's).
 *
 * As text, one part a line, the hash last (32 hex digits):
 *   build HASH
 *   kernel [PATH ]HASH
 *   initrd [PATH ]HASH
 *   image NAME [PATH ]HASH      (one per disk, in disk order)
 * PATH says where the file was when the identity was taken, so a trace can
 * find it again; comparisons look at hashes only. A part may be absent (a
 * snapshot has no kernel: it is in its RAM; an old trace has no build). */
#ifndef THEMIS_IDENTITY_H
#define THEMIS_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDENTITY_MAX_IMAGES 8 /* the board's virtio slots */
#define IDENTITY_PATH_MAX   1024
#define IDENTITY_NAME_MAX   16

struct identity_file {
	bool known; /* the part is there */
	uint8_t hash[16];
	char path[IDENTITY_PATH_MAX]; /* "" when not recorded */
};

struct identity {
	struct identity_file build, kernel, initrd;
	struct identity_file images[IDENTITY_MAX_IMAGES];
	char image_names[IDENTITY_MAX_IMAGES][IDENTITY_NAME_MAX];
	int nimages;
};

/* The parts, as masks for identity_diff. */
enum identity_part {
	IDENTITY_BUILD = 1,
	IDENTITY_KERNEL = 2,
	IDENTITY_INITRD = 4,
	IDENTITY_IMAGES = 8,
	IDENTITY_ALL = 15,
};

/* XXH3-128 of a whole file's content (canonical byte order); false if it
 * cannot be read. */
bool identity_file_hash(const char *path, uint8_t out[16]);

/* Take the identity of this build (the running executable) and of these
 * files: kernel and initrd may be NULL (the part is then absent); image i
 * is named names[i] (NULL: "diskI"). 0, or -1 with err naming the file
 * that cannot be read. */
int identity_take(struct identity *id, const char *kernel, const char *initrd,
		  const char *const *images, const char *const *names, int nimages, char *err,
		  size_t errlen);

/* Append the identity to out as text lines (see above), with the paths if
 * with_paths. The text's length, or -1 if it does not fit in cap. */
int identity_to_text(const struct identity *id, bool with_paths, char *out, size_t cap);

/* Read one line of text (without its newline) into id: 1 if it was an
 * identity line, 0 if it is some other line, -1 if it is a damaged one. */
int identity_parse_line(struct identity *id, const char *line);

/* The parts among `parts` in which `have` is not `want`: a part known to
 * only one side differs too, and images differ if their counts do. 0 when
 * they agree; else the mask, and why names the first of them in words
 * ("the build", "the kernel (PATH)", "image ext4 (PATH)"; PATH is have's
 * file, or want's if have names none; whylen > 0). */
unsigned identity_diff(const struct identity *want, const struct identity *have, unsigned parts,
		       char *why, size_t whylen);

#endif
