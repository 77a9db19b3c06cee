/*
 * A pack and its version 2 index, read as a clone's checkout reads them (core/gitfmt/pack_read.h).
 * An input is a 4-byte little-endian length, that many bytes of index, then the pack: the
 * index is parsed against the pack's size, every entry's offset and CRC read, then both are
 * written as the one pack of a scratch objects directory and every id the index names is read
 * through a cursor. Properties: an offset given out lies between the pack's header and its
 * trailing checksum; an object read whole has a type git knows.
 */
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "core/gitfmt/pack_read.h"

static char objects[64];

/* The scratch directory removed when the fuzzer ends. */
static void clean(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/pack/pack-fuzz.idx", objects);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/pack/pack-fuzz.pack", objects);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/pack", objects);
	(void)rmdir(path);
	(void)rmdir(objects);
}

/* Writes len bytes of data to <objects>/pack/pack-fuzz<ext>. */
static void put(const char *ext, const uint8_t *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/pack/pack-fuzz%s", objects, ext);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_pack_index idx;
	const uint8_t *ix, *pack;
	size_t ilen, plen;
	ss_packs *packs = NULL;
	ss_pack_cursor *cur = NULL;
	ss_pack_object obj = {0};
	ss_error err;

	if (size < 4)
		return 0;
	ilen =
	    (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
	if (ilen > size - 4)
		return 0;
	ix = data + 4;
	pack = ix + ilen;
	plen = size - 4 - ilen;
	if (!ilen || !ss_pack_read_index(&idx, ix, ilen, plen))
		return 0;
	for (uint32_t i = 0; i < idx.n; i++) {
		uint64_t off;

		if (ss_pack_read_offset(&idx, i, &off))
			fuzz_check(off >= 12 && off < plen - 20, "an offset outside the entries");
		(void)ss_pack_read_crc(&idx, i);
	}
	if (!*objects) {
		char dir[] = "/tmp/ss-fuzz-pack-XXXXXX", sub[96];

		if (!mkdtemp(dir))
			abort();
		snprintf(objects, sizeof(objects), "%s", dir);
		snprintf(sub, sizeof(sub), "%s/pack", objects);
		if (mkdir(sub, 0700) < 0)
			abort();
		atexit(clean);
		/* a clone's checkout reads packs with libgit2 started (core/git/repo.c); its error
		 * line formats the id through libgit2's per-thread buffer */
		git_libgit2_init();
	}
	put(".idx", ix, ilen);
	put(".pack", pack, plen);
	if (ss_pack_read_open(&packs, objects, &err) < 0 ||
	    ss_pack_read_cursor_new(&cur, packs, &err) < 0)
		abort();
	for (uint32_t i = 0; i < idx.n; i++) {
		git_oid id;
		bool found;

		memset(&id, 0, sizeof(id));
		memcpy(id.id, idx.ids + (size_t)i * GIT_OID_RAWSZ, GIT_OID_RAWSZ);
		if (ss_pack_read_object(cur, id.id, &obj, &found, &err) == 0 && found)
			fuzz_check(obj.type >= GIT_OBJECT_COMMIT && obj.type <= GIT_OBJECT_TAG &&
			               obj.len <= obj.alloc,
			           "an object of no type git knows");
	}
	free(obj.data);
	ss_pack_read_cursor_free(cur);
	ss_pack_read_close(packs);
	return 0;
}
