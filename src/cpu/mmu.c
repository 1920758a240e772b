/* mmu.c - Sv39 translation, the soft TLB's fills, and the slow paths of
 * loads, stores and fetches.
 *
 * The fast paths (cpu_internal.h) hit a direct-mapped TLB per access kind
 * (read, write, fetch) and regime whose entries hold host_page - vpage, so
 * a hit is one compare and one add. A miss lands here: translate (walking the page table
 * and setting A/D in hardware, as QEMU does), ask the bus for the host page,
 * and fill the entry when the page is plain RAM for that kind of access.
 * Anything else (MMIO, watched RAM pages, accesses that straddle a page) is
 * served access by access through the bus and never cached.
 *
 * Each translation regime (cpu.h: U, S, S with SUM, M) has sets of its
 * own, and the hart's tlb_r/tlb_w/tlb_x point at the current regime's
 * (mmu_select): an entry is only ever filled and hit under the permissions
 * it was checked with. Invariant: until the fill log overflows, every full
 * slot is in it once, so flushes, the dcache's invalidations and a fork's
 * save and restore visit the few hundred slots a state fills rather than
 * the twelve thousand there are.
 *
 * The write TLB must only ever hold pages the bus returned for writing: a
 * machine fork relies on cpu_flush_writable() to make the next write to
 * every page miss in every regime, so the copy-on-write in the bus sees it.
 * The read TLB may hold the bus's shared zero page for RAM never written;
 * every first write to such a page drops those entries (cpu_ram_homed,
 * which the board's RAM calls), which is why the read TLB keeps each
 * entry's physical page. */
#include "cpu_internal.h"
#include "dcache.h"

#define PTE_V (1u << 0)
#define PTE_R (1u << 1)
#define PTE_W (1u << 2)
#define PTE_X (1u << 3)
#define PTE_U (1u << 4)
#define PTE_A (1u << 6)
#define PTE_D (1u << 7)

#define SATP_MODE_SV39 8ULL

static const uint64_t page_fault[3] = {EXC_LOAD_PAGE, EXC_STORE_PAGE, EXC_INSN_PAGE};
static const uint64_t access_fault[3] = {EXC_LOAD_ACCESS, EXC_STORE_ACCESS, EXC_INSN_ACCESS};

/* The privilege loads and stores are checked with (MPRV applies). */
static int effective_priv(const struct cpu *c, int acc)
{
	if (acc != ACC_X && c->priv == PRV_M && (c->csr.mstatus & MSTATUS_MPRV))
		return (int)((c->csr.mstatus & MSTATUS_MPP) >> 11);
	return c->priv;
}

static int regime_of(int priv)
{
	return priv == PRV_U ? TLB_U : priv == PRV_S ? TLB_S : TLB_M;
}

void mmu_select(struct cpu *c)
{
	int data = regime_of(effective_priv(c, ACC_R)), fetch = regime_of(c->priv);
	if (data == TLB_S && (c->csr.mstatus & MSTATUS_SUM))
		data = TLB_S_SUM;
	c->tlb_r = c->tlbs[ACC_R][data];
	c->tlb_w = c->tlbs[ACC_W][data];
	c->tlb_x = c->tlbs[ACC_X][fetch];
}

static struct cpu_tlb_entry *slot_at(struct cpu *c, unsigned n)
{
	_Static_assert(ACC_R == 0 && ACC_W == 1 && ACC_X == 2 && TLB_KINDS == 3 &&
			   TLB_SLOTS <= 65536,
		       "the sets are by access kind; slot numbers fit the log's 16 bits");
	return &c->tlbs[0][0][0] + n;
}

static int kind_of(unsigned n)
{
	return (int)(n / (TLB_REGIMES * CPU_TLB_SIZE));
}

/* The next full slot after *i: from the log, or once it overflowed from
 * every slot; -1 at the end. */
static int next_full(struct cpu *c, unsigned *i)
{
	bool whole = c->tlb_logged > CPU_TLB_LOG;
	while (*i < (whole ? TLB_SLOTS : c->tlb_logged)) {
		unsigned n = whole ? *i : c->tlb_log[*i];
		++*i;
		if (slot_at(c, n)->tag != ~0ULL)
			return (int)n;
	}
	return -1;
}

/* Fill slot n, logging it if it was empty. */
static void tlb_set(struct cpu *c, unsigned n, const struct cpu_tlb_entry *val)
{
	struct cpu_tlb_entry *e = slot_at(c, n);
	if (e->tag == ~0ULL) {
		if (c->tlb_logged < CPU_TLB_LOG)
			c->tlb_log[c->tlb_logged++] = (uint16_t)n;
		else
			c->tlb_logged = CPU_TLB_LOG + 1;
	}
	*e = *val;
}

/* Which entries a drop empties, beside their kind (arg is the drop's). */
typedef bool tlb_match(struct cpu *c, const struct cpu_tlb_entry *e, uintptr_t arg);

/* Empty the full slots of the kinds in `kinds` (a bit per ACC_*) that
 * `match` accepts (NULL: all), and keep the log to the slots still full:
 * a log that had overflowed is rebuilt if they fit. */
static void tlb_drop(struct cpu *c, unsigned kinds, tlb_match *match, uintptr_t arg)
{
	unsigned i = 0, kept = 0;
	bool over = false;
	for (int n; (n = next_full(c, &i)) >= 0;) {
		struct cpu_tlb_entry *e = slot_at(c, (unsigned)n);
		if (kinds >> kind_of((unsigned)n) & 1 && (!match || match(c, e, arg)))
			e->tag = ~0ULL;
		else if (kept < CPU_TLB_LOG)
			c->tlb_log[kept++] = (uint16_t)n; /* kept <= i: the log is read ahead */
		else
			over = true;
	}
	c->tlb_logged = over ? CPU_TLB_LOG + 1 : kept;
}

#define TLB_ALL (1u << ACC_R | 1u << ACC_W | 1u << ACC_X)

void cpu_flush_tlb(struct cpu *c)
{
	c->events[CPU_EV_FLUSH]++;
	tlb_drop(c, TLB_ALL, NULL, 0);
	mmu_select(c);
}

/* The host page a filled entry maps its virtual page to. */
static uintptr_t entry_host(const struct cpu_tlb_entry *e)
{
	return e->addend + (e->tag << 12);
}

void cpu_flush_writable(struct cpu *c)
{
	tlb_drop(c, 1u << ACC_W, NULL, 0);
}

void cpu_tlb_save(struct cpu *c, struct cpu_tlb_saved *s)
{
	s->n = 0;
	unsigned i = 0;
	for (int n; (n = next_full(c, &i)) >= 0 && s->n < CPU_TLB_LOG;)
		if (kind_of((unsigned)n) != ACC_W) {
			s->slot[s->n] = (uint16_t)n;
			s->e[s->n++] = *slot_at(c, (unsigned)n);
		}
}

/* Does saved entry e still map what it did: RAM holds the same host page
 * at its physical page, and for a fetch entry, the dcache the same
 * decoded page for it? */
static bool entry_holds(struct cpu *c, const struct cpu_tlb_entry *e, bool fetch)
{
	const uint8_t *host = (const uint8_t *)entry_host(e);
	if (c->bus.ram(c->bus.opaque, e->pa, false) != host)
		return false;
	return !fetch || dcache_find(c, host) == e->code;
}

void cpu_tlb_load(struct cpu *c, struct cpu_tlb_saved *s)
{
	unsigned kept = 0;
	for (unsigned k = 0; k < s->n; k++) {
		if (!entry_holds(c, &s->e[k], kind_of(s->slot[k]) == ACC_X))
			continue; /* and never again: the saved list forgets it */
		tlb_set(c, s->slot[k], &s->e[k]);
		s->slot[kept] = s->slot[k];
		s->e[kept++] = s->e[k];
	}
	s->n = kept;
}

static bool maps_zero_page_at(struct cpu *c, const struct cpu_tlb_entry *e, uintptr_t pa)
{
	return e->pa == pa && entry_host(e) == (uintptr_t)c->bus.zero_page;
}

void cpu_ram_homed(void *hart, uint64_t pa)
{
	tlb_drop(hart, 1u << ACC_R, maps_zero_page_at, (uintptr_t)(pa & ~0xfffULL));
}

void mmu_flush_fetch(struct cpu *c)
{
	tlb_drop(c, 1u << ACC_X, NULL, 0);
}

static bool maps_host(struct cpu *c, const struct cpu_tlb_entry *e, uintptr_t host)
{
	(void)c;
	return entry_host(e) == host;
}

void mmu_unmap_writable(struct cpu *c, const uint8_t *host)
{
	tlb_drop(c, 1u << ACC_W, maps_host, (uintptr_t)host);
}

static bool leaf_allows(const struct cpu *c, uint64_t pte, int acc, int priv)
{
	if (priv == PRV_U && !(pte & PTE_U))
		return false;
	if (priv == PRV_S && (pte & PTE_U)) {
		if (acc == ACC_X || !(c->csr.mstatus & MSTATUS_SUM))
			return false;
	}
	switch (acc) {
	case ACC_X: return pte & PTE_X;
	case ACC_W: return pte & PTE_W;
	default: return (pte & PTE_R) || ((c->csr.mstatus & MSTATUS_MXR) && (pte & PTE_X));
	}
}

/* Read or update a PTE in physical memory; false if it is not in RAM. */
static bool pte_load(struct cpu *c, uint64_t pa, uint64_t *pte)
{
	uint8_t *page = c->bus.ram(c->bus.opaque, pa, false);
	if (!page)
		return false;
	memcpy(pte, page + (pa & 0xfff), 8);
	return true;
}

static bool pte_store(struct cpu *c, uint64_t pa, uint64_t pte)
{
	uint8_t *page = c->bus.ram(c->bus.opaque, pa, true);
	if (!page)
		return false;
	memcpy(page + (pa & 0xfff), &pte, 8);
	dcache_store(c, page, pa & 0xfff, 8);
	return true;
}

enum walk_result { WALK_OK, WALK_PAGE_FAULT, WALK_ACCESS_FAULT };

/* mark: set the leaf's A (and D) bits as an access does; a peek leaves
 * the page tables as they are. */
static enum walk_result sv39_walk(struct cpu *c, uint64_t va, int acc, int priv, bool mark,
				  uint64_t *pa)
{
	if ((uint64_t)((int64_t)(va << 25) >> 25) != va)
		return WALK_PAGE_FAULT;
	uint64_t table = (c->csr.satp & ((1ULL << 44) - 1)) << 12;
	for (int level = 2; level >= 0; level--) {
		uint64_t pte_pa = table + ((va >> (12 + 9 * level)) & 0x1ff) * 8;
		uint64_t pte;
		if (!pte_load(c, pte_pa, &pte))
			return WALK_ACCESS_FAULT;
		if (!(pte & PTE_V) || ((pte & PTE_W) && !(pte & PTE_R)) || (pte >> 54))
			return WALK_PAGE_FAULT;
		uint64_t ppn = (pte >> 10) & ((1ULL << 44) - 1);
		if (!(pte & (PTE_R | PTE_X))) {
			table = ppn << 12;
			continue;
		}
		uint64_t low_ppn_mask = (1ULL << (9 * level)) - 1;
		if ((ppn & low_ppn_mask) || !leaf_allows(c, pte, acc, priv))
			return WALK_PAGE_FAULT;
		uint64_t ad = PTE_A | (acc == ACC_W ? PTE_D : 0);
		if (mark && (pte & ad) != ad && !pte_store(c, pte_pa, pte | ad))
			return WALK_ACCESS_FAULT;
		uint64_t page_mask = (1ULL << (12 + 9 * level)) - 1;
		*pa = ((ppn << 12) & ~page_mask) | (va & page_mask);
		return WALK_OK;
	}
	return WALK_PAGE_FAULT;
}

bool mmu_translate(struct cpu *c, uint64_t va, int acc, uint64_t *pa)
{
	int priv = effective_priv(c, acc);
	if (priv == PRV_M || (c->csr.satp >> 60) != SATP_MODE_SV39) {
		*pa = va;
		return true;
	}
	switch (sv39_walk(c, va, acc, priv, true, pa)) {
	case WALK_OK: return true;
	case WALK_ACCESS_FAULT: cpu_exception(c, access_fault[acc], va); return false;
	default: cpu_exception(c, page_fault[acc], va); return false;
	}
}

static struct cpu_tlb_entry *tlb_for(struct cpu *c, int acc, uint64_t va)
{
	struct cpu_tlb_entry *tlb = acc == ACC_R ? c->tlb_r : acc == ACC_W ? c->tlb_w : c->tlb_x;
	return &tlb[tlb_vpn(va) % CPU_TLB_SIZE];
}

/* Translate and return the host page for va, filling the TLB; NULL (with
 * *pa set and no fault raised) when the page is not plain RAM. */
static uint8_t *page_for(struct cpu *c, uint64_t va, int acc, uint64_t *pa, bool *ok)
{
	_Static_assert(CPU_EV_MISS_W == CPU_EV_MISS_R + ACC_W &&
			   CPU_EV_MISS_X == CPU_EV_MISS_R + ACC_X,
		       "the misses are counted in the order of the access kinds");
	c->events[CPU_EV_MISS_R + acc]++;
	*ok = mmu_translate(c, va, acc, pa);
	if (!*ok)
		return NULL;
	uint8_t *page = c->bus.ram(c->bus.opaque, *pa, acc == ACC_W);
	if (!page)
		return NULL;
	struct dpage *code = NULL;
	if (page == c->bus.zero_page && acc == ACC_X)
		return page; /* decoding zeros: not worth a decoded page */
	if (acc == ACC_W && dcache_find(c, page))
		return page; /* holds decoded code: stores stay on the slow path */
	if (acc == ACC_X && !(code = dcache_get(c, page)))
		return page; /* out of memory for decoding: fetch the slow way */
	struct cpu_tlb_entry e = {tlb_vpn(va), (uintptr_t)page - (va & ~0xfffULL), code,
				  *pa & ~0xfffULL};
	tlb_set(c, (unsigned)(tlb_for(c, acc, va) - &c->tlbs[0][0][0]), &e);
	return page;
}

/* One access that lies within a page. */
static bool load_in_page(struct cpu *c, uint64_t va, int size, uint64_t *val)
{
	uint64_t pa;
	bool ok;
	uint8_t *page = page_for(c, va, ACC_R, &pa, &ok);
	if (!ok)
		return false;
	if (page) {
		uint64_t v = 0;
		memcpy(&v, page + (pa & 0xfff), size);
		*val = v;
		return true;
	}
	if (!c->bus.load(c->bus.opaque, pa, size, val)) {
		cpu_exception(c, EXC_LOAD_ACCESS, va);
		return false;
	}
	return true;
}

bool mmu_load_slow(struct cpu *c, uint64_t va, int size, uint64_t *val)
{
	if (tlb_fits(va, size))
		return load_in_page(c, va, size, val);
	/* Misaligned across a page boundary: byte by byte, no side effects. */
	uint64_t v = 0;
	for (int i = 0; i < size; i++) {
		uint64_t b;
		if (!load_in_page(c, va + i, 1, &b))
			return false;
		v |= b << (8 * i);
	}
	*val = v;
	return true;
}

static bool store_phys(struct cpu *c, uint64_t va, uint64_t pa, uint8_t *page, int size,
		       uint64_t val)
{
	if (page) {
		memcpy(page + (pa & 0xfff), &val, size);
		dcache_store(c, page, pa & 0xfff, size);
		return true;
	}
	if (!c->bus.store(c->bus.opaque, pa, size, val)) {
		cpu_exception(c, EXC_STORE_ACCESS, va);
		return false;
	}
	/* A watched RAM page may hold code too. */
	uint8_t *ram = c->bus.ram(c->bus.opaque, pa, false);
	if (ram)
		dcache_store(c, ram, pa & 0xfff, size);
	return true;
}

bool mmu_store_slow(struct cpu *c, uint64_t va, int size, uint64_t val)
{
	uint64_t pa;
	bool ok;
	if (tlb_fits(va, size)) {
		uint8_t *page = page_for(c, va, ACC_W, &pa, &ok);
		return ok && store_phys(c, va, pa, page, size, val);
	}
	/* Straddles two pages: translate both before writing either. */
	uint64_t va2 = (va | 0xfff) + 1, pa2;
	int n1 = (int)(va2 - va);
	uint8_t *p1 = page_for(c, va, ACC_W, &pa, &ok);
	if (!ok)
		return false;
	uint8_t *p2 = page_for(c, va2, ACC_W, &pa2, &ok);
	if (!ok)
		return false;
	for (int i = 0; i < size; i++) {
		bool first = i < n1;
		uint64_t off = first ? (uint64_t)i : (uint64_t)(i - n1);
		if (!store_phys(c, va + i, (first ? pa : pa2) + off, first ? p1 : p2, 1,
				(val >> (8 * i)) & 0xff))
			return false;
	}
	return true;
}

static bool fetch16(struct cpu *c, uint64_t va, uint16_t *half)
{
	const struct cpu_tlb_entry *e = tlb_for(c, ACC_X, va);
	if (e->tag == tlb_vpn(va)) { /* a hit: an instruction straddling pages runs this often */
		memcpy(half, (const uint8_t *)(e->addend + va), 2);
		return true;
	}
	uint64_t pa;
	bool ok;
	uint8_t *page = page_for(c, va, ACC_X, &pa, &ok);
	if (!ok)
		return false;
	if (!page) {
		cpu_exception(c, EXC_INSN_ACCESS, va);
		return false;
	}
	memcpy(half, page + (pa & 0xfff), 2);
	return true;
}

int mmu_fill_fetch(struct cpu *c, uint64_t pc)
{
	uint64_t pa;
	bool ok;
	page_for(c, pc, ACC_X, &pa, &ok);
	if (!ok)
		return -1;
	return tlb_for(c, ACC_X, pc)->tag == tlb_vpn(pc);
}

bool mmu_fetch_slow(struct cpu *c, uint64_t pc, uint32_t *insn)
{
	uint16_t lo, hi = 0;
	if (!fetch16(c, pc, &lo))
		return false;
	if ((lo & 3) == 3 && !fetch16(c, pc + 2, &hi))
		return false;
	*insn = lo | (uint32_t)hi << 16;
	return true;
}

uint8_t *mmu_rmw_ptr(struct cpu *c, uint64_t va, int size)
{
	struct cpu_tlb_entry *e = tlb_for(c, ACC_W, va);
	if (e->tag == tlb_vpn(va))
		return (uint8_t *)(e->addend + va);
	uint64_t pa;
	bool ok;
	uint8_t *page = page_for(c, va, ACC_W, &pa, &ok);
	if (!ok)
		return NULL;
	if (!page) {
		cpu_exception(c, EXC_STORE_ACCESS, va);
		return NULL;
	}
	dcache_store(c, page, pa & 0xfff, size);
	return page + (pa & 0xfff);
}

bool cpu_virt_to_phys(struct cpu *c, uint64_t va, bool write, uint64_t *pa)
{
	int acc = write ? ACC_W : ACC_R, priv = effective_priv(c, acc);
	if (priv == PRV_M || (c->csr.satp >> 60) != SATP_MODE_SV39) {
		*pa = va;
		return true;
	}
	return sv39_walk(c, va, acc, priv, true, pa) == WALK_OK;
}

bool cpu_fill(struct cpu *c, uint64_t va, uint8_t byte, uint64_t len)
{
	while (len) {
		uint64_t n = 4096 - (va & 0xfff);
		n = n < len ? n : len;
		const struct cpu_tlb_entry *e = &c->tlb_w[tlb_vpn(va) % CPU_TLB_SIZE];
		if (e->tag == tlb_vpn(va)) {
			/* A page the write TLB holds is RAM, dirty and holds no
			 * decoded code (page_for). */
			memset((uint8_t *)(e->addend + va), byte, n);
		} else {
			uint64_t pa;
			uint8_t *page;
			if (!cpu_virt_to_phys(c, va, true, &pa) ||
			    !(page = c->bus.ram(c->bus.opaque, pa, true)))
				return false;
			memset(page + (pa & 0xfff), byte, n);
			cpu_ram_written(c, page + (pa & 0xfff), n);
		}
		va += n, len -= n;
	}
	return true;
}

bool cpu_kernel_peek(struct cpu *c, uint64_t va, uint64_t *pa)
{
	if ((c->csr.satp >> 60) != SATP_MODE_SV39) {
		*pa = va;
		return true;
	}
	return sv39_walk(c, va, ACC_R, PRV_S, false, pa) == WALK_OK;
}
