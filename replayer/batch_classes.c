/* batch_classes.c — classes of hash values: at a loop's return address a
 * state's outcomes are a function of one class per hash kind, so a new
 * state costs a few lookups whatever the members, and is counted under
 * its tuple of classes (batch_eval.h). */
#include "replayer/batch_eval.h"

#include <stdlib.h>
#include <string.h>

void batch_classes_free(ra_fast *f)
{
	for (unsigned i = 0; f && i < f->nk; i++) {
		if (f->k[i].cls != f->k[i].low)
			free(f->k[i].cls);
		free(f->k[i].low);
		free(f->k[i].m);
		free(f->k[i].classes);
		free(f->k[i].count);
		free(f->k[i].map);
		free(f->k[i].val);
	}
	free(f);
}

static uint32_t child_slot(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* Whether budget b has `more` bytes left, which are then taken. */
static int budget_take(fast_budget *b, size_t more)
{
	if (b->used + more > b->max)
		return 0;
	b->used += more;
	return 1;
}

/* Room in kind k, below CLASSES_MAX, for another class: its outcomes,
 * its count and its entry in the map.  0, or -1 when out of memory. */
static int class_room(fast_kind *k)
{
	if (k->nclasses == k->cap) {
		uint32_t cap = 2 * k->cap;
		uint8_t *c = realloc(k->classes, (size_t)cap * k->n);
		if (c)
			k->classes = c;
		uint64_t *n = realloc(k->count, ((size_t)cap + 1) * sizeof *n);
		if (n)
			k->count = n;
		if (!c || !n)
			return -1;
		memset(k->count + k->cap + 1, 0, (size_t)(cap - k->cap) * sizeof *n);
		k->cap = cap;
	}
	if ((k->nclasses + 1) * 2 <= k->mask + 1)
		return 0;
	uint32_t mask = 2 * k->mask + 1;
	uint64_t *map = calloc((size_t)mask + 1, sizeof *map);
	uint16_t *val = malloc(((size_t)mask + 1) * sizeof *val);
	if (!map || !val) {
		free(map);
		free(val);
		return -1;
	}
	for (uint32_t i = 0; i <= k->mask; i++) {
		if (!k->map[i])
			continue;
		uint32_t at = child_slot(k->map[i], mask);
		while (map[at])
			at = (at + 1) & mask;
		map[at] = k->map[i];
		val[at] = k->val[i];
	}
	free(k->map);
	free(k->val);
	k->map = map;
	k->val = val;
	k->mask = mask;
	return 0;
}

/* The class of parent class p with the members of one level (their bits
 * being that level) at outcomes o (OUT_* bits, 2 a member, those of m[from
 * .. to) in order): interned in map, a new class (p's outcomes and these)
 * when new; 0 when no more fit (the budget spent, CLASSES_MAX, out of
 * memory). */
static unsigned class_child(fast_kind *k, unsigned p, uint32_t o, unsigned from, unsigned to)
{
	uint64_t key = ((uint64_t)from << 48 | (uint64_t)p << 32 | o) + 1;  /* 0: empty */
	uint32_t at = child_slot(key, k->mask);
	for (; k->map[at]; at = (at + 1) & k->mask)
		if (k->map[at] == key)
			return k->val[at];
	/* Its outcomes, its count and two slots of the map (half full); a
	 * kind that is full takes nothing, or each refusal would spend the
	 * budget of the others. */
	size_t bytes = k->n + sizeof *k->count + 2 * (sizeof *k->map + sizeof *k->val);
	if (k->nclasses == CLASSES_MAX || (k->budget && !budget_take(k->budget, bytes)) ||
	    class_room(k))
		return 0;
	for (at = child_slot(key, k->mask); k->map[at];)
		at = (at + 1) & k->mask;
	uint8_t *v = k->classes + (size_t)k->nclasses * k->n;
	memcpy(v, k->classes + (size_t)(p - 1) * k->n, k->n);
	for (unsigned t = from; t < to; t++)
		v[t] = (uint8_t)(o >> 2 * (t - from) & 3);
	unsigned c = ++k->nclasses;
	k->map[at] = key;
	k->val[at] = (uint16_t)c;
	return c;
}

/* The class of the kind's hash h (as e->pd.h holds it) without the table:
 * level by level, its members' outcomes where they have some.  A few
 * loads a member, where a state comes to an address seldom; 0 when no
 * more classes fit. */
static unsigned walk_class(fast_kind *k, uint64_t h)
{
	unsigned c = k->low[k->kind == FP_HASH_KNUTH ? h >> (64 - LOW_BITS)
						     : h & fp_hash_mask(LOW_BITS)];
	for (unsigned t = k->walk_from; t < k->n; t++) {
		const fast_member *m = &k->m[t];
		uint64_t y = h >> m->yshift & m->ymask;
		if (!fpi_row_has(m->row, y))
			continue;  /* the usual case: at_row's bits imply row's */
		uint32_t o = 0;  /* its level's outcomes, which share y */
		for (unsigned i = m->from; i < m->to; i++)
			o |= (uint32_t)(fpi_row_has(k->m[i].row, y) |
					fpi_row_has(k->m[i].at_row, y) << 1) << 2 * (i - m->from);
		if (!(c = class_child(k, c, o, m->from, m->to)))
			return 0;
		t = m->to - 1;
	}
	return c;
}

/* Fills kind k's table: the class of every value of its bits.  Level by
 * level, its members in order of their bits: at level L the classes are
 * those of the members of at most L bits, for each value of the first L
 * bits, and a value's class is its parent's (the value of its first L - 1
 * bits) unless a member of L bits has an outcome there, which only the
 * bits set in that member's bitmaps give: so the cost is the table's size
 * and the bits recorded, not a lookup per value and member.  Class 1 is
 * every outcome 0, and a class's outcomes for the members of more bits
 * than its level are 0.  0, or -1 when out of memory or classes. */
static uint16_t *fast_fill(fast_kind *k, unsigned bits)
{
	size_t entries = (size_t)1 << bits;
	uint16_t *c = malloc((entries < 4 ? 4 : entries) * sizeof *c);  /* 8 bytes read */
	if (!c)
		return NULL;
	c[0] = 1;
	int knuth = k->kind == FP_HASH_KNUTH, rc = 0;
	unsigned t = 0;
	for (unsigned L = 0; L <= bits && !rc; L++) {
		size_t half = L ? (size_t)1 << (L - 1) : 0, size = (size_t)1 << L;
		if (L && !knuth) {  /* parent: the low L - 1 bits */
			for (size_t y = 0; y < half; y += 4) {  /* 8 bytes at a time */
				uint64_t v;
				memcpy(&v, c + (y & (half - 1)), sizeof v);
				memcpy(c + half + y, &v, half < 4 ? half * sizeof *c : sizeof v);
			}
		} else if (L) {  /* parent: the top L - 1 bits, two at once */
			for (size_t y = half; y-- > 0;) {
				uint32_t two = c[y] * 0x10001u;
				memcpy(c + 2 * y, &two, sizeof two);
			}
		}
		unsigned from = t;
		while (t < k->n && k->m[t].bits == L)
			t++;
		if (t == from)
			continue;
		/* The values where a member of this level has an outcome: the
		 * bits set in its bitmap of the ra*, which at_row's imply. */
		for (size_t w = 0; w < (size + 63) / 64 && !rc; w++) {
			uint64_t any = 0;
			for (unsigned i = from; i < t; i++)
				any |= k->m[i].row[w];
			while (any && !rc) {
				size_t y = w * 64 + (unsigned)__builtin_ctzll(any);
				any &= any - 1;
				uint32_t o = 0;
				for (unsigned i = from; i < t; i++)
					o |= (uint32_t)(fpi_row_has(k->m[i].row, y) |
							fpi_row_has(k->m[i].at_row, y) << 1) << 2 * (i - from);
				unsigned child = class_child(k, c[y], o, from, t);
				if (!child)
					rc = -1;
				c[y] = (uint16_t)child;
			}
		}
	}
	if (rc) {
		free(c);
		return NULL;
	}
	return c;
}

/* The bits kind k's first table (k->low) is indexed by. */
static unsigned low_bits(const fast_kind *k)
{
	return k->bits < LOW_BITS ? k->bits : LOW_BITS;
}

/* The bytes batch_classes_build's f takes. */
static size_t fast_size(const ra_fast *f)
{
	size_t bytes = sizeof *f;
	for (unsigned i = 0; i < f->nk; i++) {
		const fast_kind *k = &f->k[i];
		bytes += k->n * sizeof *k->m + (size_t)k->cap * k->n +
			 ((size_t)k->cap + 1) * sizeof *k->count +
			 ((size_t)k->mask + 1) * (sizeof *k->map + sizeof *k->val) +
			 ((size_t)1 << low_bits(k)) * sizeof *k->low;
	}
	return bytes;
}

/* Orders a kind's members by their bits. */
static int by_bits(const void *a, const void *b)
{
	const fast_member *x = a, *y = b;
	return x->bits != y->bits ? (x->bits > y->bits) - (x->bits < y->bits)
				  : (x->j > y->j) - (x->j < y->j);
}

/* The classes of return address ra (see fast_kind), without tables yet,
 * or NULL when out of memory or a level has more than 16 members (the
 * outcomes of a level are a 32-bit word). */
ra_fast *batch_classes_build(evaluator *e, uint32_t ra)
{
	ra_fast *f = calloc(1, sizeof *f);
	ra_fast **list = realloc(e->cl.fast_list, (e->cl.nfast + 1) * sizeof *list);
	if (list)
		e->cl.fast_list = list;
	if (!f || !list) {
		free(f);
		return NULL;
	}
	for (unsigned j = 0; j < e->nmembers; j++) {
		unsigned kind = member_kind(e, j, ra), i = 0, b = e->members[j]->cfg.hash_bits;
		while (i < f->nk && f->k[i].kind != kind)
			i++;
		if (i == f->nk)
			f->k[f->nk++].kind = kind;
		f->k[i].n++;
		if (b > f->k[i].bits)
			f->k[i].bits = b;
	}
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		k->h = e->pd.h[k->kind];
		k->xshift = k->kind == FP_HASH_KNUTH && k->bits ? 64 - k->bits : 0;
		k->xmask = fp_hash_mask(k->bits);
		k->m = calloc(k->n, sizeof *k->m);
		k->cap = 16;
		k->classes = calloc(k->cap, k->n);  /* class 1: every outcome 0 */
		k->count = calloc((size_t)k->cap + 1, sizeof *k->count);
		k->mask = 31;
		k->map = calloc((size_t)k->mask + 1, sizeof *k->map);
		k->val = malloc(((size_t)k->mask + 1) * sizeof *k->val);
		if (!k->m || !k->classes || !k->count || !k->map || !k->val) {
			batch_classes_free(f);
			return NULL;
		}
		k->nclasses = 1;
		k->n = 0;
	}
	for (unsigned j = 0; j < e->nmembers; j++) {
		unsigned kind = member_kind(e, j, ra), i = 0;
		while (f->k[i].kind != kind)
			i++;
		fast_member *m = &f->k[i].m[f->k[i].n++];
		const uint64_t *sum;
		member_rows(e->members[j], ra, &m->row, &sum, &m->at_row);
		m->bits = e->members[j]->cfg.hash_bits;
		m->j = j;
		m->ra_bits = e->members[j]->cfg.ra_bits;
		m->rr = (unsigned)e->members[j]->cfg.round_robin;
		/* Knuth's narrow values are the top bits of the wider ones. */
		int knuth = kind == FP_HASH_KNUTH;
		m->yshift = knuth && m->bits ? 64 - m->bits : 0;
		m->ymask = knuth ? (m->bits ? UINT64_MAX : 0) : fp_hash_mask(m->bits);
	}
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		qsort(k->m, k->n, sizeof *k->m, by_bits);
		for (unsigned t = 0, from = 0; t <= k->n; t++) {
			if (t < k->n && k->m[t].bits == k->m[from].bits)
				continue;
			if (t - from > 16) {
				batch_classes_free(f);
				return NULL;
			}
			for (unsigned x = from; x < t; x++) {
				k->m[x].from = from;
				k->m[x].to = t;
			}
			from = t;
		}
		k->walk_from = 0;
		while (k->walk_from < k->n && k->m[k->walk_from].bits <= LOW_BITS)
			k->walk_from++;
		if (!(k->low = fast_fill(k, low_bits(k)))) {
			batch_classes_free(f);
			return NULL;
		}
		if (k->bits <= LOW_BITS)
			k->cls = k->low;  /* that is the whole table */
	}
	/* Built whole, whatever it took; new classes from now on take from
	 * the budget, one at a time. */
	e->cl.fast_mem.used += fast_size(f);
	for (unsigned i = 0; i < f->nk; i++)
		f->k[i].budget = &e->cl.fast_mem;
	f->slot = e->cl.nfast;
	e->cl.fast_list[e->cl.nfast++] = f;
	return f;
}

/* Tables for the classes of f's kinds (fast_fill): where FAST_AFTER new
 * states came, a look-up costs less than walking the levels.  A kind
 * whose table cannot be had walks on. */
void batch_classes_dense(evaluator *e, ra_fast *f)
{
	f->dense = 1;
	for (unsigned i = 0; i < f->nk; i++) {
		fast_kind *k = &f->k[i];
		size_t table = ((size_t)1 << k->bits) * sizeof *k->cls;
		if (!k->cls && budget_take(&e->cl.fast_mem, table) && !(k->cls = fast_fill(k, k->bits)))
			e->cl.fast_mem.used -= table;
		f->dense &= k->cls != NULL;
	}
}

/* Empties the tuple cache (its vectors were dropped). */
void batch_tuples_clear(evaluator *e)
{
	if (e->cl.tuples)
		memset(e->cl.tuples, 0, ((size_t)e->cl.tuple_mask + 1) * sizeof *e->cl.tuples);
	e->cl.ntuples = 0;
}

static uint32_t tuple_slot(uint64_t cls, uint32_t slot1, uint32_t mask)
{
	return (uint32_t)(((cls + slot1) * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* The vector id of the classes cls at the address of tables f: a tuple
 * stands for the vector its classes give, so it is counted as one and
 * settled class by class (batch_settle_counts), without putting the vector
 * together.  There is room for a new id (batch_vectors_room); NO_VECTOR
 * when out of memory. */
static uint32_t tuple_id(evaluator *e, const ra_fast *f, uint64_t cls)
{
	if ((e->cl.ntuples + 1) * 2 > e->cl.tuple_mask + 1) {
		/* Twice the entries, up to 2^TUPLES_MAX_BITS; then it starts
		 * again empty (a tuple may then take a second id). */
		uint32_t mask = e->cl.tuple_mask ? 2 * e->cl.tuple_mask + 1 : 4095;
		tuple_entry *to = mask < 1u << TUPLES_MAX_BITS ? calloc((size_t)mask + 1, sizeof *to)
								: NULL;
		if (!to) {
			if (!e->cl.tuples)
				return NO_VECTOR;
			batch_tuples_clear(e);
		} else {
			for (uint32_t i = 0; e->cl.tuples && i <= e->cl.tuple_mask; i++) {
				const tuple_entry *t = &e->cl.tuples[i];
				if (!t->slot1)
					continue;
				uint32_t at = tuple_slot(t->cls, t->slot1, mask);
				while (to[at].slot1)
					at = (at + 1) & mask;
				to[at] = *t;
			}
			free(e->cl.tuples);
			e->cl.tuples = to;
			e->cl.tuple_mask = mask;
		}
	}
	uint32_t slot1 = f->slot + 1;
	uint32_t at = tuple_slot(cls, slot1, e->cl.tuple_mask);
	for (;; at = (at + 1) & e->cl.tuple_mask) {
		tuple_entry *t = &e->cl.tuples[at];
		if (!t->slot1)
			break;
		if (t->cls == cls && t->slot1 == slot1)
			return t->vec;
	}
	uint32_t vec = (uint32_t)e->vx.vec_counts.n;
	*(uint64_t *)grow(&e->vx.vec_counts) = 0;
	*(tuple_entry *)grow(&e->vx.vec_tuples) = (tuple_entry){ .cls = cls, .slot1 = slot1 };
	e->cl.tuples[at] = (tuple_entry){ .cls = cls, .slot1 = slot1, .vec = vec };
	e->cl.ntuples++;
	return vec;
}

/* The class tables of return address ra, or NULL. */
static ra_fast *fast_find(const evaluator *e, uint32_t ra)
{
	if (!e->tb.rinfo)
		return NULL;
	uint32_t at = ((ra + 1) * 0x9E3779B1u >> 8) & e->tb.rinfo_mask;
	while (e->tb.rinfo[at].key && e->tb.rinfo[at].key != ra + 1)
		at = (at + 1) & e->tb.rinfo_mask;
	return e->tb.rinfo[at].fast;
}

/* The interned vector of new state q at return address ra, of classes
 * cls at f, whose g(s) was recorded (e->pd.in[q]): each member's outcome is
 * its class's, with OUT_INPUT where a recorded address shares its ra*
 * (rr_input_at for round-robin) — a hit repeats a recorded input there —
 * as eval_member_rows says.  There is room (batch_vectors_room). */
static uint32_t input_vector(evaluator *e, const ra_fast *f, uint64_t cls, unsigned q,
			     uint32_t ra)
{
	const fp_index *x = e->members[0];  /* its input table is every member's */
	const fpi_input *in = e->pd.in[q];
	/* The ra* of ra_bits bits are alike where ra / 2 and a recorded
	 * address / 2 agree in their low ra_bits bits: at most `agree`. */
	unsigned agree = 0;
	for (uint32_t i = 0; i < in->count; i++) {
		uint32_t d = (x->input_ras[in->first + i] ^ ra) >> 1;
		unsigned a = d ? (unsigned)__builtin_ctz(d) : 64;
		agree = a > agree ? a : agree;
	}
	uint8_t *v = e->cl.scratch;
	for (unsigned i = 0; i < f->nk; i++) {
		const fast_kind *k = &f->k[i];
		const uint8_t *from = k->classes + (size_t)((cls >> 16 * i & 0xFFFF) - 1) * k->n;
		for (unsigned t = 0; t < k->n; t++) {
			unsigned dup = k->m[t].ra_bits <= agree;
			if (k->m[t].rr) {
				const fp_config *c = &e->members[k->m[t].j]->cfg;
				unsigned shift = k->kind == FP_HASH_KNUTH && c->hash_bits
							 ? 64 - c->hash_bits : 0;
				dup = (unsigned)rr_input_at(e, c, q, fp_reduce_ra(ra, c->ra_bits),
							    e->pd.h[k->kind][q] >> shift &
							    fp_hash_mask(c->hash_bits));
			}
			v[k->m[t].j] = (uint8_t)(from[t] | dup << 2);
		}
	}
	return batch_intern(e, v);
}

/* Counts the pending new states that classes can tell — those at
 * addresses with classes, but not at recorded interrupts — each under its
 * tuple of classes (or, where its g(s) was recorded, its vector); leaves
 * the others first in the pending arrays, in order, and returns how many
 * they are. */
unsigned batch_classes_flush(evaluator *e)
{
	unsigned nm = e->pd.npend, nf = 0;
	if (!e->cl.nfast || batch_vectors_room(e))
		return nm;
	const fp_index *any = e->members[0];
	uint32_t last_ra = UINT32_MAX;
	ra_fast *f = NULL;
	for (unsigned i = 0; i < nm; i++) {
		e->cl.fast_done[i] = 0;
		if (e->pd.pend_truth[i])
			continue;
		if (e->pd.pend_ra[i] != last_ra) {
			last_ra = e->pd.pend_ra[i];
			f = fast_find(e, last_ra);
		}
		if (!f)
			continue;
		uint64_t g = sim_tap_unpack(&e->shared->plan, e->pd.pend_w[i]);
		e->pd.in[nf] = any->has_input_keys ? fpi_input_find(any, g) : NULL;
		e->cl.fast_of[nf] = f;
		e->pd.at[nf] = i;
		e->pd.g[nf++] = g;
	}
	if (!nf)
		return nm;
	for (int k = 0; k < FP_HASH_COUNT; k++)
		if (e->hash_bits[k])
			fp_hash_words((fp_hash_kind)k, e->pd.g, nf, any->cfg.ngather, e->hash_bits[k],
				      e->pd.h[k]);
	for (unsigned q = 0; q < nf; q++) {
		f = e->cl.fast_of[q];
		uint64_t cls = 0;
		unsigned i;
		int walked = 0;
		if (f->dense && f->nk == FP_HASH_COUNT) {  /* every kind: unrolled */
			const fast_kind *k = f->k;
			cls = (uint64_t)k[0].cls[k[0].h[q] >> k[0].xshift & k[0].xmask] |
			      (uint64_t)k[1].cls[k[1].h[q] >> k[1].xshift & k[1].xmask] << 16 |
			      (uint64_t)k[2].cls[k[2].h[q] >> k[2].xshift & k[2].xmask] << 32 |
			      (uint64_t)k[3].cls[k[3].h[q] >> k[3].xshift & k[3].xmask] << 48;
		} else if (f->dense) {  /* the usual case, without a branch a kind */
			for (i = 0; i < f->nk; i++) {
				const fast_kind *k = &f->k[i];
				cls |= (uint64_t)k->cls[k->h[q] >> k->xshift & k->xmask] << 16 * i;
			}
		}
		for (i = f->dense ? f->nk : 0; i < f->nk; i++) {
			fast_kind *k = &f->k[i];
			uint64_t h = e->pd.h[k->kind][q];
			unsigned c = k->cls ? k->cls[h >> k->xshift & k->xmask]
					    : (walked = 1, walk_class(k, h));
			if (!c)
				break;
			cls |= (uint64_t)c << 16 * i;
		}
		uint32_t vec = i < f->nk   ? NO_VECTOR
			       : e->pd.in[q] ? input_vector(e, f, cls, q, e->pd.pend_ra[e->pd.at[q]])
					  : tuple_id(e, f, cls);
		if (walked && ++f->walked == FAST_AFTER)
			batch_classes_dense(e, f);  /* a loop's address: tables pay */
		if (vec == NO_VECTOR)
			continue;
		unsigned p = e->pd.at[q];
		uint64_t *vec_counts = e->vx.vec_counts.items;
		if (e->pd.pend_state[p] != NO_STATE) {
			state *t = &e->st.states[e->pd.pend_state[p]];
			t->vec = vec;
			vec_counts[vec] += t->count;
		} else {
			vec_counts[vec]++;
		}
		e->cl.fast_done[p] = 1;
	}
	unsigned keep = 0;
	for (unsigned i = 0; i < nm; i++) {
		if (e->cl.fast_done[i])
			continue;
		e->pd.pend_ra[keep] = e->pd.pend_ra[i];
		e->pd.pend_w[keep] = e->pd.pend_w[i];
		e->pd.pend_state[keep] = e->pd.pend_state[i];
		e->pd.pend_truth[keep++] = e->pd.pend_truth[i];
	}
	return keep;
}
