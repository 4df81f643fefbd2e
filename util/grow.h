/*
 * grow.h — a growing array: db/'s loaders and validation, the analyses.
 */
#ifndef AVRR_UTIL_GROW_H
#define AVRR_UTIL_GROW_H

#include <stdlib.h>

typedef struct growbuf {
	void *items;
	size_t n, cap, size;  /* size: of one item */
} growbuf;

/* The first capacity: 1,024 small items, or 16 KiB of large ones (a
 * table of a few configurations of 580 bytes each need not take 600 KB,
 * which a sanitizer's allocator maps and unmaps every time). */
static inline size_t grow_first_cap(const growbuf *g)
{
	return g->size <= 16 ? 1024 : g->size >= 16384 / 16 ? 16 : 16384 / g->size;
}

/* A new item at the end, or NULL when out of memory (the array as it was). */
static inline void *grow(growbuf *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : grow_first_cap(g);
		void *p = realloc(g->items, cap * g->size);
		if (!p)
			return NULL;
		g->items = p;
		g->cap = cap;
	}
	return (char *)g->items + g->n++ * g->size;
}

/* k new items at the end, or NULL when out of memory (the array as it was). */
static inline void *grow_n(growbuf *g, size_t k)
{
	if (g->cap - g->n < k) {
		size_t cap = g->cap ? g->cap : grow_first_cap(g);
		while (cap - g->n < k)
			cap *= 2;
		void *p = realloc(g->items, cap * g->size);
		if (!p)
			return NULL;
		g->items = p;
		g->cap = cap;
	}
	void *at = (char *)g->items + g->n * g->size;
	g->n += k;
	return at;
}

#endif
