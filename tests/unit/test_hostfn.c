/* tier: fast */
/* test_hostfn.c - guest functions computed on the host (cpu.h's host_fn,
 * src/machine/virt_hostfn.c):
 *   - the CRCs are the kernel's: CRC-32 and CRC-32C of "123456789" give
 *     the catalogue's check values, a CRC continued over two pieces is the
 *     CRC of the whole, and random buffers (at any alignment) match a
 *     bit-at-a-time reference, by the tables and by the host's crc32
 *     instruction alike;
 *   - the hart: a call of a host function's entry returns the bus's value
 *     to ra as one instruction, and when the bus declines, the guest's own
 *     code runs; the same under the compiler and the interpreter, and a
 *     function whose entry is not wired runs as code; an entry wired at
 *     its physical alias (the kernel's before paging) is a call too;
 *   - cpu_fill (memset on the host) writes exactly its bytes, declines
 *     off RAM, and drops decoded code it overwrites: a loop the hart ran
 *     (compiled or interpreted) runs the new bytes after the fill.
 *   build/asan/test_hostfn [test-name] */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "cpu/cpu.h"
#include "machine/virt_hostfn.h"

static uint32_t crc_bitwise(uint32_t poly, uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? crc >> 1 ^ poly : crc >> 1;
	}
	return crc;
}

static void test_crc_values(void)
{
	static struct virt_crc_table t32, t32c, t32c_sw;
	virt_crc_table_init(&t32, 0xedb88320u, true);
	virt_crc_table_init(&t32c, 0x82f63b78u, true);
	virt_crc_table_init(&t32c_sw, 0x82f63b78u, false);
	CHECK(!t32.hw && !t32c_sw.hw);
	const uint8_t *s = (const uint8_t *)"123456789";
	CHECK(~virt_crc(&t32, ~0u, s, 9) == 0xcbf43926u);
	CHECK(~virt_crc(&t32c, ~0u, s, 9) == 0xe3069283u);
	CHECK(~virt_crc(&t32c_sw, ~0u, s, 9) == 0xe3069283u);
	CHECK(virt_crc(&t32c, virt_crc(&t32c, 7, s, 4), s + 4, 5) == virt_crc(&t32c, 7, s, 9));
	CHECK(virt_crc(&t32, 1234, s, 0) == 1234);
	uint8_t buf[4099];
	srand(1);
	for (int round = 0; round < 50; round++) {
		size_t n = (size_t)rand() % sizeof(buf);
		uint32_t seed = (uint32_t)rand();
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rand();
		CHECK(virt_crc(&t32c, seed, buf, n) == crc_bitwise(0x82f63b78u, seed, buf, n));
		CHECK(virt_crc(&t32c_sw, seed, buf + 1, n ? n - 1 : 0) ==
		      crc_bitwise(0x82f63b78u, seed, buf + 1, n ? n - 1 : 0));
		CHECK(virt_crc(&t32, seed, buf, n) == crc_bitwise(0xedb88320u, seed, buf, n));
	}
}

/* ---- a hart with 64 KiB of RAM and a host function ---- */

#define BASE 0x80000000ULL
#define FN   (BASE + 0x100)

static uint8_t ram[64 << 10] __attribute__((aligned(4096)));
static bool serve;
static int calls;

static uint8_t *bus_ram(void *opaque, uint64_t pa, bool write)
{
	(void)opaque, (void)write;
	return pa >= BASE && pa < BASE + sizeof(ram) ? ram + ((pa - BASE) & ~0xfffULL) : NULL;
}

static bool bus_host(void *opaque, struct cpu *c, int which, uint64_t *ret)
{
	(void)opaque;
	calls++;
	if (!serve || which != 1)
		return false;
	*ret = c->x[10] * 1000; /* a value the guest's code would not give */
	return true;
}

static void put32(uint64_t at, uint32_t insn)
{
	memcpy(ram + (at - BASE), &insn, 4);
}

/* li a0, 5; jal ra, FN; mv a1, a0; j . -- FN: addi a0, a0, 100; ret
 * (5 instructions to the loop; 4 when FN is computed on the host).
 * Returns a1 after 30 instructions, with *steps what they stepped. */
static uint64_t run_at(bool jit, uint64_t va, uint64_t alias, bool served, uint64_t *steps)
{
	static const struct cpu_bus bus = {.ram = bus_ram, .host_fn = bus_host};
	struct cpu c;
	memset(ram, 0, sizeof(ram));
	put32(BASE, 0x00500513);
	put32(BASE + 4, 0x0fc000ef);
	put32(BASE + 8, 0x00050593);
	put32(BASE + 12, 0x0000006f);
	put32(FN, 0x06450513);
	put32(FN + 4, 0x00008067);
	if (!CHECK(cpu_init(&c, &bus, BASE) == 0))
		return 0;
	cpu_use_jit(&c, jit);
	c.host_fn[1] = va, c.host_fn_alias[1] = alias;
	serve = served, calls = 0;
	uint64_t n = 0;
	for (int i = 0; i < 30; i++) /* one at a time: stop at the loop */
		if (c.pc != BASE + 12)
			n += cpu_run(&c, 1);
	*steps = n;
	uint64_t a1 = c.x[11];
	cpu_free(&c);
	return a1;
}

static uint64_t run(bool jit, bool wired, bool served, uint64_t *steps)
{
	return run_at(jit, wired ? FN : 0, 0, served, steps);
}

static void test_hart(void)
{
	for (int jit = 0; jit < 2; jit++) {
		uint64_t steps;
		CHECK(run(jit, true, true, &steps) == 5000 && steps == 4 && calls == 1);
		CHECK(run(jit, true, false, &steps) == 105 && steps == 5 && calls == 1);
		CHECK(run(jit, false, true, &steps) == 105 && steps == 5 && calls == 0);
		/* Wired at another (virtual) address, called at its alias. */
		CHECK(run_at(jit, 0xffffffff80000100ULL, FN, true, &steps) == 5000 && steps == 4);
	}
}

/* li a0, 0; L: addi a0, a0, 1; j L -- then the addi filled with 0x01
 * bytes (c.addi sp, 0 twice: no-ops). a0 after 20 more steps. */
static void test_fill(void)
{
	static const struct cpu_bus bus = {.ram = bus_ram, .host_fn = bus_host};
	for (int jit = 0; jit < 2; jit++) {
		struct cpu c;
		memset(ram, 0, sizeof(ram));
		put32(BASE, 0x00000513);
		put32(BASE + 4, 0x00150513);
		put32(BASE + 8, 0xffdff06f);
		if (!CHECK(cpu_init(&c, &bus, BASE) == 0))
			return;
		cpu_use_jit(&c, jit);
		c.priv = PRV_S;
		for (int i = 0; i < 21; i++)
			cpu_run(&c, 1);
		CHECK(c.x[10] == 10);
		CHECK(cpu_fill(&c, BASE + 4, 0x01, 4));
		CHECK(ram[3] == 0 && ram[4] == 1 && ram[7] == 1 && ram[8] == 0x6f);
		uint64_t was = c.x[10];
		for (int i = 0; i < 20; i++)
			cpu_run(&c, 1);
		CHECK(c.x[10] == was); /* the no-ops, not the decoded addi */
		/* A run across a page boundary; off RAM declines. */
		CHECK(cpu_fill(&c, BASE + 0x1ff0, 0xab, 0x20));
		CHECK(ram[0x1fef] == 0 && ram[0x1ff0] == 0xab && ram[0x200f] == 0xab &&
		      ram[0x2010] == 0);
		CHECK(!cpu_fill(&c, BASE + sizeof(ram) - 8, 0xcd, 16));
		cpu_free(&c);
	}
}

int main(int argc, char **argv)
{
	static const struct unit_test tests[] = {
	    {"crc_values", test_crc_values},
	    {"hart", test_hart},
	    {"fill", test_fill},
	};
	return unit_main("test_hostfn", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
