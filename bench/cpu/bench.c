/* Themis CPU benchmark: a freestanding RV64GC program that runs a fixed,
 * deterministic amount of compute-heavy work and prints one checksum per
 * kernel on the UART, then the number of instructions it retired.
 *
 * It runs unchanged on `themis bare bench.elf` and on
 * `qemu-system-riscv64 -M virt -bios none -nographic -kernel bench.elf`;
 * the two must print the same checksums. Nothing here depends on time or on
 * a device's state, so the instruction count is the same on every machine
 * that implements RV64GC correctly.
 *
 * Output, one line each:
 *   themis-bench cpu 1
 *   <kernel> 0x<16 hex digits>      (one per kernel, in the order below)
 *   instret <decimal>               (minstret at the end minus at entry)
 * then 0x5555 is written to the SiFive test finisher at 0x100000.
 *
 * Build: riscv64-linux-gnu-gcc -O2 -march=rv64gc -mabi=lp64d -mcmodel=medany
 *   -ffreestanding -nostdlib -nostartfiles -static -fno-pie -no-pie
 *   -Wl,--build-id=none -T link.ld start.S bench.c   (see run.sh) */

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Devices and printing */

#define UART_THR ((volatile uint8_t *)0x10000000UL)

static void put_char(char c)
{
	*UART_THR = (uint8_t)c; /* no LSR polling: it would not change the
				   output and could change the count */
}

static void put_str(const char *s)
{
	while (*s)
		put_char(*s++);
}

static void put_hex64(uint64_t v)
{
	put_str("0x");
	for (int i = 60; i >= 0; i -= 4)
		put_char("0123456789abcdef"[(v >> i) & 15]);
}

static void put_dec64(uint64_t v)
{
	char buf[24];
	int n = 0;
	do {
		buf[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		put_char(buf[--n]);
}

static void report(const char *name, uint64_t sum)
{
	put_str(name);
	put_char(' ');
	put_hex64(sum);
	put_char('\n');
}

/* Called by start.S on any trap; start.S then stops with a failure code. */
void bench_trap(uint64_t mcause, uint64_t mepc, uint64_t mtval);
void bench_trap(uint64_t mcause, uint64_t mepc, uint64_t mtval)
{
	put_str("trap mcause ");
	put_hex64(mcause);
	put_str(" mepc ");
	put_hex64(mepc);
	put_str(" mtval ");
	put_hex64(mtval);
	put_char('\n');
}

static inline uint64_t read_minstret(void)
{
	uint64_t v;
	__asm__ volatile("csrr %0, minstret" : "=r"(v));
	return v;
}

/* ------------------------------------------------------------------------
 * Library routines the compiler may also call (struct copies, zeroing).
 * Loop-to-call pattern recognition is off for them so they cannot call
 * themselves. */

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
		uint64_t *dw = (uint64_t *)d;
		const uint64_t *sw = (const uint64_t *)s;
		while (n >= 32) {
			uint64_t a = sw[0], b = sw[1], c = sw[2], e = sw[3];
			dw[0] = a;
			dw[1] = b;
			dw[2] = c;
			dw[3] = e;
			dw += 4;
			sw += 4;
			n -= 32;
		}
		while (n >= 8) {
			*dw++ = *sw++;
			n -= 8;
		}
		d = (uint8_t *)dw;
		s = (const uint8_t *)sw;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	while (n && ((uintptr_t)d & 7)) {
		*d++ = (uint8_t)c;
		n--;
	}
	uint64_t w = (uint8_t)c * 0x0101010101010101ULL;
	uint64_t *dw = (uint64_t *)d;
	while (n >= 32) {
		dw[0] = w;
		dw[1] = w;
		dw[2] = w;
		dw[3] = w;
		dw += 4;
		n -= 32;
	}
	while (n >= 8) {
		*dw++ = w;
		n -= 8;
	}
	d = (uint8_t *)dw;
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (d <= s || d >= s + n) {
		while (n--)
			*d++ = *s++;
	} else {
		d += n;
		s += n;
		while (n--)
			*--d = *--s;
	}
	return dst;
}

NO_LIBCALL int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

/* ------------------------------------------------------------------------
 * Helpers: a pseudo-random generator and a checksum mixer */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s;
}

static inline uint64_t rng_next(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0x100000001b3ULL;
}

static inline uint64_t f64_bits(double d)
{
	union {
		double d;
		uint64_t u;
	} x = {.d = d};
	return x.u;
}

static inline uint32_t f32_bits(float f)
{
	union {
		float f;
		uint32_t u;
	} x = {.f = f};
	return x.u;
}

static inline float sqrt_f32(float x)
{
	float r;
	__asm__("fsqrt.s %0, %1" : "=f"(r) : "f"(x));
	return r;
}

/* Shared big buffers (in .bss, zeroed by start.S; every kernel fills what
 * it reads). */
#define BUF_BYTES (4u << 20)
static uint64_t buf_a[BUF_BYTES / 8];
static uint64_t buf_b[BUF_BYTES / 8];

/* ------------------------------------------------------------------------
 * 1. CRC-32 (IEEE, reflected, table-driven, byte at a time) and a 64-bit
 *    multiply-rotate hash over 1 MiB of pseudo-random bytes. */

#define CRC_BYTES  (1u << 20)
#define CRC_PASSES 12

static uint32_t crc_table[256];

static uint64_t kernel_crc32(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	rng_seed(1);
	uint64_t *w = buf_a;
	for (uint32_t i = 0; i < CRC_BYTES / 8; i++)
		w[i] = rng_next();

	const uint8_t *p = (const uint8_t *)buf_a;
	uint64_t sum = 0;
	for (int pass = 0; pass < CRC_PASSES; pass++) {
		uint32_t crc = 0xffffffffu;
		for (uint32_t i = 0; i < CRC_BYTES; i++)
			crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
		sum = mix(sum, crc ^ 0xffffffffu);
		/* Change one byte so no two passes are alike. */
		((uint8_t *)buf_a)[(pass * 7919u) % CRC_BYTES] ^= (uint8_t)(pass + 1);
	}
	for (int pass = 0; pass < CRC_PASSES; pass++) {
		uint64_t h = 0x243f6a8885a308d3ULL ^ (uint64_t)pass;
		for (uint32_t i = 0; i < CRC_BYTES / 8; i++) {
			h ^= w[i] * 0x9fb21c651e98df25ULL;
			h = (h << 27) | (h >> 37);
			h = h * 5 + 0x52dce729;
		}
		sum = mix(sum, h);
	}
	return sum;
}

/* ------------------------------------------------------------------------
 * 2. Sort pseudo-random 32-bit integers: quicksort (median of three,
 *    insertion sort for small ranges, recursion on the smaller side). */

#define SORT_N	    (192u * 1024)
#define SORT_ROUNDS 4

static void insertion_sort(uint32_t *a, long n)
{
	for (long i = 1; i < n; i++) {
		uint32_t v = a[i];
		long j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static void quick_sort(uint32_t *a, long n)
{
	while (n > 16) {
		uint32_t x = a[0], y = a[n / 2], z = a[n - 1];
		uint32_t pivot =
		    x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		long i = 0, j = n - 1;
		for (;;) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			uint32_t t = a[i];
			a[i] = a[j];
			a[j] = t;
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j+1, n) */
		long left = j + 1, right = n - left;
		if (left < right) {
			quick_sort(a, left);
			a += left;
			n = right;
		} else {
			quick_sort(a + left, right);
			n = left;
		}
	}
	insertion_sort(a, n);
}

static uint64_t kernel_sort(void)
{
	uint32_t *a = (uint32_t *)buf_a;
	uint64_t sum = 0;
	for (int r = 0; r < SORT_ROUNDS; r++) {
		rng_seed(100 + r);
		/* Round 3 has many duplicates. */
		uint32_t mask = r == 3 ? 0xfffu : 0xffffffffu;
		for (uint32_t i = 0; i < SORT_N; i++)
			a[i] = (uint32_t)rng_next() & mask;
		quick_sort(a, SORT_N);
		uint64_t bad = 0;
		for (uint32_t i = 1; i < SORT_N; i++)
			bad += a[i - 1] > a[i];
		sum = mix(sum, bad);
		for (uint32_t i = 0; i < SORT_N; i += 97)
			sum = mix(sum, a[i]);
	}
	return sum;
}

/* ------------------------------------------------------------------------
 * 3. Sieve of Eratosthenes over a byte array: count, sum and last primes. */

#define SIEVE_N	     (4u << 20)
#define SIEVE_ROUNDS 2

static uint64_t kernel_sieve(void)
{
	uint8_t *s = (uint8_t *)buf_a;
	uint64_t sum = 0;
	for (int r = 0; r < SIEVE_ROUNDS; r++) {
		uint32_t n = SIEVE_N - (uint32_t)r * 12345u;
		memset(s, 1, n);
		s[0] = s[1] = 0;
		for (uint32_t i = 2; (uint64_t)i * i < n; i++)
			if (s[i])
				for (uint32_t j = i * i; j < n; j += i)
					s[j] = 0;
		uint64_t count = 0, total = 0, last = 0;
		for (uint32_t i = 0; i < n; i++)
			if (s[i]) {
				count++;
				total += i;
				last = i;
			}
		sum = mix(mix(mix(sum, count), total), last);
	}
	return sum;
}

/* ------------------------------------------------------------------------
 * 4. Memory: memset and memcpy over 4 MiB, a misaligned byte copy, and a
 *    memmove with overlap. */

#define MEM_ROUNDS 24

static uint64_t kernel_memory(void)
{
	uint8_t *a = (uint8_t *)buf_a, *b = (uint8_t *)buf_b;
	uint64_t sum = 0;
	rng_seed(7);
	for (uint32_t i = 0; i < BUF_BYTES / 8; i++)
		buf_a[i] = rng_next();
	for (int r = 0; r < MEM_ROUNDS; r++) {
		memset(b, r * 17 + 3, BUF_BYTES);
		sum = mix(sum, buf_b[(r * 4099u) % (BUF_BYTES / 8)]);
		memcpy(b, a, BUF_BYTES);
		sum = mix(sum, buf_b[(r * 8191u) % (BUF_BYTES / 8)]);
		/* Misaligned source and destination: byte by byte. */
		uint32_t off = 1 + (uint32_t)r % 7;
		memcpy(b + off, a + 2 * off, BUF_BYTES / 16);
		memmove(a + 64, a + 64 + off, BUF_BYTES / 64);
		sum = mix(sum, buf_b[r + 1]);
	}
	/* Fold all of b: every byte the copies wrote counts. */
	uint64_t h = 0;
	for (uint32_t i = 0; i < BUF_BYTES / 8; i++)
		h = (h ^ buf_b[i]) * 0x100000001b3ULL;
	return mix(sum, h);
}

/* ------------------------------------------------------------------------
 * 5. Pointer chasing through one random cycle over 1 Mi entries (4 MiB),
 *    made with Sattolo's shuffle. */

#define CHASE_N	    (1u << 20)
#define CHASE_STEPS (12u << 20)

static uint64_t kernel_chase(void)
{
	uint32_t *next = (uint32_t *)buf_b;
	for (uint32_t i = 0; i < CHASE_N; i++)
		next[i] = i;
	rng_seed(42);
	for (uint32_t i = CHASE_N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rng_next() % i); /* j < i: one cycle */
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	uint64_t sum = 0;
	uint32_t p = 0;
	for (uint32_t k = 0; k < CHASE_STEPS; k++) {
		p = next[p];
		sum += p;
	}
	/* Check it is one cycle: walking CHASE_N steps from 0 comes back. */
	uint32_t q = 0, len = 0;
	do {
		q = next[q];
		len++;
	} while (q != 0 && len <= CHASE_N);
	return mix(mix(sum, p), len);
}

/* ------------------------------------------------------------------------
 * 6. A switch-dispatched bytecode interpreter (a small register machine)
 *    running Collatz trajectories and a GCD loop: indirect jumps and
 *    data-dependent branches. */

enum {
	OP_LI,	 /* r[a] = imm */
	OP_MOV,	 /* r[a] = r[b] */
	OP_ADD,	 /* r[a] = r[b] + r[c] */
	OP_SUB,	 /* r[a] = r[b] - r[c] */
	OP_MUL,	 /* r[a] = r[b] * r[c] */
	OP_REM,	 /* r[a] = r[b] % r[c] (unsigned, c != 0) */
	OP_AND,	 /* r[a] = r[b] & r[c] */
	OP_XOR,	 /* r[a] = r[b] ^ r[c] */
	OP_ADDI, /* r[a] = r[b] + imm */
	OP_ANDI, /* r[a] = r[b] & imm */
	OP_SHRI, /* r[a] = r[b] >> imm */
	OP_SHLI, /* r[a] = r[b] << imm */
	OP_MAX,	 /* r[a] = max(r[a], r[b]) */
	OP_JMP,	 /* pc = imm */
	OP_JZ,	 /* if r[a] == 0: pc = imm */
	OP_JNZ,	 /* if r[a] != 0: pc = imm */
	OP_JEQ,	 /* if r[a] == r[b]: pc = imm */
	OP_JNE,	 /* if r[a] != r[b]: pc = imm */
	OP_JLT,	 /* if r[a] < r[b]: pc = imm */
	OP_HALT,
};

struct insn {
	uint8_t op, a, b, c;
	int32_t imm;
};

#define I(o, a, b, c, imm)                                                                         \
	{                                                                                          \
		OP_##o, a, b, c, imm                                                               \
	}
#define VM_LIMIT 12000

/* r1 = 1, r2 = n, r3 = limit, r4 = x, r5 = steps, r6 = total of steps,
 * r7 = most steps, r8 = tmp, r9/r10 = gcd operands, r11 = gcd fold,
 * r12 = 3 */
static const struct insn vm_prog[] = {
    /*  0 */ I(LI, 2, 0, 0, 1),
    /*  1 */ I(LI, 3, 0, 0, VM_LIMIT),
    /*  2 */ I(LI, 1, 0, 0, 1),
    /*  3 */ I(LI, 12, 0, 0, 3),
    /*  4 */ I(LI, 6, 0, 0, 0),
    /*  5 */ I(LI, 7, 0, 0, 0),
    /*  6 */ I(LI, 11, 0, 0, 0),
    /* for each n: Collatz steps of n */
    /*  7 */ I(MOV, 4, 2, 0, 0),
    /*  8 */ I(LI, 5, 0, 0, 0),
    /*  9 */ I(JEQ, 4, 1, 0, 17),
    /* 10 */ I(ANDI, 8, 4, 0, 1),
    /* 11 */ I(JZ, 8, 0, 0, 15),
    /* 12 */ I(MUL, 4, 4, 12, 0), /* odd: x = 3x + 1 */
    /* 13 */ I(ADDI, 4, 4, 0, 1),
    /* 14 */ I(JMP, 0, 0, 0, 16),
    /* 15 */ I(SHRI, 4, 4, 0, 1), /* even: x = x / 2 */
    /* 16 */ I(ADDI, 5, 5, 0, 1),
    /* 17 */ I(JNE, 4, 1, 0, 10),
    /* 18 */ I(ADD, 6, 6, 5, 0),
    /* 19 */ I(MAX, 7, 5, 0, 0),
    /* gcd(n * 7919 + 13, n + 104729) by remainders, folded into r11 */
    /* 20 */ I(LI, 8, 0, 0, 7919),
    /* 21 */ I(MUL, 9, 2, 8, 0),
    /* 22 */ I(ADDI, 9, 9, 0, 13),
    /* 23 */ I(ADDI, 10, 2, 0, 104729),
    /* 24 */ I(JZ, 10, 0, 0, 29),
    /* 25 */ I(REM, 8, 9, 10, 0),
    /* 26 */ I(MOV, 9, 10, 0, 0),
    /* 27 */ I(MOV, 10, 8, 0, 0),
    /* 28 */ I(JMP, 0, 0, 0, 24),
    /* 29 */ I(XOR, 11, 11, 9, 0),
    /* 30 */ I(SHLI, 8, 11, 0, 1), /* r11 = rotl(r11, 1) */
    /* 31 */ I(SHRI, 11, 11, 0, 63),
    /* 32 */ I(ADD, 11, 11, 8, 0),
    /* 33 */ I(ADDI, 2, 2, 0, 1),
    /* 34 */ I(JLT, 2, 3, 0, 7),
    /* 35 */ I(HALT, 0, 0, 0, 0),
};

static uint64_t vm_run(const struct insn *prog, uint64_t *r, uint64_t *executed)
{
	uint64_t count = 0;
	uint32_t pc = 0;
	for (;;) {
		const struct insn *in = &prog[pc++];
		count++;
		switch (in->op) {
		case OP_LI: r[in->a] = (uint64_t)(int64_t)in->imm; break;
		case OP_MOV: r[in->a] = r[in->b]; break;
		case OP_ADD: r[in->a] = r[in->b] + r[in->c]; break;
		case OP_SUB: r[in->a] = r[in->b] - r[in->c]; break;
		case OP_MUL: r[in->a] = r[in->b] * r[in->c]; break;
		case OP_REM: r[in->a] = r[in->b] % r[in->c]; break;
		case OP_AND: r[in->a] = r[in->b] & r[in->c]; break;
		case OP_XOR: r[in->a] = r[in->b] ^ r[in->c]; break;
		case OP_ADDI: r[in->a] = r[in->b] + (uint64_t)(int64_t)in->imm; break;
		case OP_ANDI: r[in->a] = r[in->b] & (uint64_t)(int64_t)in->imm; break;
		case OP_SHRI: r[in->a] = r[in->b] >> (in->imm & 63); break;
		case OP_SHLI: r[in->a] = r[in->b] << (in->imm & 63); break;
		case OP_MAX:
			if (r[in->b] > r[in->a])
				r[in->a] = r[in->b];
			break;
		case OP_JMP: pc = (uint32_t)in->imm; break;
		case OP_JZ:
			if (r[in->a] == 0)
				pc = (uint32_t)in->imm;
			break;
		case OP_JNZ:
			if (r[in->a] != 0)
				pc = (uint32_t)in->imm;
			break;
		case OP_JEQ:
			if (r[in->a] == r[in->b])
				pc = (uint32_t)in->imm;
			break;
		case OP_JNE:
			if (r[in->a] != r[in->b])
				pc = (uint32_t)in->imm;
			break;
		case OP_JLT:
			if (r[in->a] < r[in->b])
				pc = (uint32_t)in->imm;
			break;
		case OP_HALT: *executed = count; return r[6];
		default: *executed = count; return ~0ULL;
		}
	}
}

/* ------------------------------------------------------------------------
 * 7. Substring search over 512 KiB of 4-letter text: naive search and
 *     Boyer-Moore-Horspool, both counting every occurrence. */

#define TEXT_N (512u * 1024)
#define PATS   12

static uint64_t search_naive(const char *t, uint32_t n, const char *p, uint32_t m)
{
	uint64_t hits = 0, where = 0;
	for (uint32_t i = 0; i + m <= n; i++) {
		uint32_t k = 0;
		while (k < m && t[i + k] == p[k])
			k++;
		if (k == m) {
			hits++;
			where = where * 31 + i;
		}
	}
	return mix(hits, where);
}

static uint64_t search_horspool(const char *t, uint32_t n, const char *p, uint32_t m)
{
	uint32_t shift[256];
	for (int i = 0; i < 256; i++)
		shift[i] = m;
	for (uint32_t i = 0; i + 1 < m; i++)
		shift[(uint8_t)p[i]] = m - 1 - i;
	uint64_t hits = 0, where = 0;
	uint32_t i = 0;
	while (i + m <= n) {
		uint8_t last = (uint8_t)t[i + m - 1];
		if (last == (uint8_t)p[m - 1] && memcmp(t + i, p, m - 1) == 0) {
			hits++;
			where = where * 31 + i;
		}
		i += shift[last];
	}
	return mix(hits, where);
}

static uint64_t kernel_interp(void)
{
	uint64_t r[16] = {0}, executed = 0;
	uint64_t sum = vm_run(vm_prog, r, &executed);
	sum = mix(sum, executed);
	sum = mix(sum, r[7]);
	return mix(sum, r[11]);
}

static uint64_t kernel_search(void)
{
	char *text = (char *)buf_a;
	rng_seed(2024);
	for (uint32_t i = 0; i < TEXT_N; i += 32) {
		uint64_t v = rng_next();
		for (int k = 0; k < 32; k++)
			text[i + k] = "acgt"[(v >> (2 * k)) & 3];
	}
	char pat[64];
	uint64_t sum = 0;
	for (int q = 0; q < PATS; q++) {
		uint32_t m = 4 + (uint32_t)q * 3; /* 4 .. 37 */
		uint32_t at = (uint32_t)(rng_next() % (TEXT_N - m));
		memcpy(pat, text + at, m);
		if (q & 1) /* odd ones are unlikely to occur */
			pat[m / 2] = 'x';
		sum = mix(sum, search_naive(text, TEXT_N, pat, m));
		sum = mix(sum, search_horspool(text, TEXT_N, pat, m));
	}
	return sum;
}

/* ------------------------------------------------------------------------
 * 8. Double-precision matrix multiply, 128 x 128 (C += A * B, i-k-j order,
 *    with fused multiply-adds), repeated with changing inputs. */

#define MAT_N	   128
#define MAT_ROUNDS 10

static double mat_a[MAT_N][MAT_N], mat_b[MAT_N][MAT_N], mat_c[MAT_N][MAT_N];

static uint64_t kernel_matmul(void)
{
	rng_seed(3);
	for (int i = 0; i < MAT_N; i++)
		for (int j = 0; j < MAT_N; j++) {
			/* Values in [-1, 1) with 20 significant bits. */
			mat_a[i][j] =
			    (double)(int32_t)((rng_next() >> 44) - (1u << 19)) / (1 << 19);
			mat_b[i][j] =
			    (double)(int32_t)((rng_next() >> 44) - (1u << 19)) / (1 << 19);
			mat_c[i][j] = 0.0;
		}
	uint64_t sum = 0;
	for (int r = 0; r < MAT_ROUNDS; r++) {
		for (int i = 0; i < MAT_N; i++)
			for (int k = 0; k < MAT_N; k++) {
				double aik = mat_a[i][k];
				for (int j = 0; j < MAT_N; j++)
					mat_c[i][j] += aik * mat_b[k][j];
			}
		/* Keep values bounded and inputs changing: B = C / |C|max-ish. */
		double scale = 1.0 / (MAT_N * (r + 1));
		for (int i = 0; i < MAT_N; i++)
			for (int j = 0; j < MAT_N; j++) {
				mat_b[i][j] = mat_c[i][j] * scale - mat_b[i][j] * 0.5;
				sum = mix(sum, f64_bits(mat_c[i][j]));
			}
	}
	return sum;
}

/* ------------------------------------------------------------------------
 * 9. Single-precision n-body (softened gravity, leapfrog-like steps). */

#define BODIES	    40
#define NBODY_STEPS 3000

static float px[BODIES], py[BODIES], pz[BODIES];
static float vx[BODIES], vy[BODIES], vz[BODIES], mass[BODIES];

static uint64_t kernel_nbody(void)
{
	rng_seed(5);
	for (int i = 0; i < BODIES; i++) {
		px[i] = (float)(int32_t)(rng_next() >> 48) / 4096.0f - 8.0f;
		py[i] = (float)(int32_t)(rng_next() >> 48) / 4096.0f - 8.0f;
		pz[i] = (float)(int32_t)(rng_next() >> 48) / 4096.0f - 8.0f;
		vx[i] = vy[i] = vz[i] = 0.0f;
		mass[i] = 0.5f + (float)(rng_next() >> 56) / 256.0f;
	}
	const float dt = 0.001f, soft = 0.01f;
	for (int s = 0; s < NBODY_STEPS; s++) {
		for (int i = 0; i < BODIES; i++) {
			float ax = 0.0f, ay = 0.0f, az = 0.0f;
			for (int j = 0; j < BODIES; j++) {
				float dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
				float d2 = dx * dx + dy * dy + dz * dz + soft;
				float inv = 1.0f / sqrt_f32(d2);
				float f = mass[j] * inv * inv * inv;
				ax += f * dx;
				ay += f * dy;
				az += f * dz;
			}
			vx[i] += ax * dt;
			vy[i] += ay * dt;
			vz[i] += az * dt;
		}
		for (int i = 0; i < BODIES; i++) {
			px[i] += vx[i] * dt;
			py[i] += vy[i] * dt;
			pz[i] += vz[i] * dt;
		}
	}
	uint64_t sum = 0;
	for (int i = 0; i < BODIES; i++) {
		sum = mix(sum, f32_bits(px[i]));
		sum = mix(sum, f32_bits(py[i]));
		sum = mix(sum, f32_bits(pz[i]));
		sum = mix(sum, f32_bits(vx[i]));
	}
	/* Energy in double, from the float state: float-to-double conversion. */
	double e = 0.0;
	for (int i = 0; i < BODIES; i++)
		e += 0.5 * mass[i] *
		     ((double)vx[i] * vx[i] + (double)vy[i] * vy[i] + (double)vz[i] * vz[i]);
	return mix(sum, f64_bits(e));
}

/* ------------------------------------------------------------------------
 * 10. Single-precision Mandelbrot set, 384 x 288, up to 512 iterations. */

#define MB_W	384
#define MB_H	288
#define MB_ITER 512

static uint64_t kernel_mandel(void)
{
	uint64_t sum = 0, total = 0;
	for (int y = 0; y < MB_H; y++) {
		float ci = -1.2f + 2.4f * (float)y / MB_H;
		uint64_t row = 0;
		for (int x = 0; x < MB_W; x++) {
			float cr = -2.1f + 3.0f * (float)x / MB_W;
			float zr = 0.0f, zi = 0.0f;
			int it = 0;
			while (it < MB_ITER) {
				float zr2 = zr * zr, zi2 = zi * zi;
				if (zr2 + zi2 > 4.0f)
					break;
				zi = 2.0f * zr * zi + ci;
				zr = zr2 - zi2 + cr;
				it++;
			}
			row = row * 263 + (uint64_t)it;
			total += (uint64_t)it;
		}
		sum = mix(sum, row);
	}
	return mix(sum, total);
}

/* ------------------------------------------------------------------------ */

/* With -DBENCH_KERNEL_INSTRET each kernel's line is followed by
 * "  instret <n>", the instructions that kernel retired (for tuning; the
 * default output has only the total). */
static uint64_t kernel_mark;

static void run_kernel(const char *name, uint64_t (*kernel)(void))
{
	report(name, kernel());
#ifdef BENCH_KERNEL_INSTRET
	uint64_t now = read_minstret();
	put_str("  instret ");
	put_dec64(now - kernel_mark);
	put_char('\n');
	kernel_mark = read_minstret();
#endif
}

#ifdef BENCH_ONLY
/* bench/cpu/kernels.sh builds one kernel at a time (-DBENCH_ONLY=NAME, a
 * kernel_NAME above, or none: start-up alone), to time each apart. */
static uint64_t kernel_none(void)
{
	return 0;
}
#define BENCH_FN(name)	 BENCH_FN_(name)
#define BENCH_FN_(name)	 kernel_##name
#define BENCH_STR(name)	 BENCH_STR_(name)
#define BENCH_STR_(name) #name
#endif

int main(uint64_t instret_at_entry);
int main(uint64_t instret_at_entry)
{
	put_str("themis-bench cpu 1\n");
	kernel_mark = read_minstret();
#ifdef BENCH_ONLY
	run_kernel(BENCH_STR(BENCH_ONLY), BENCH_FN(BENCH_ONLY));
#else
	run_kernel("crc32", kernel_crc32);
	run_kernel("sort", kernel_sort);
	run_kernel("sieve", kernel_sieve);
	run_kernel("memory", kernel_memory);
	run_kernel("chase", kernel_chase);
	run_kernel("interp", kernel_interp);
	run_kernel("search", kernel_search);
	run_kernel("matmul", kernel_matmul);
	run_kernel("nbody", kernel_nbody);
	run_kernel("mandel", kernel_mandel);
#endif
	uint64_t n = read_minstret() - instret_at_entry;
	put_str("instret ");
	put_dec64(n);
	put_char('\n');
	return 0;
}
