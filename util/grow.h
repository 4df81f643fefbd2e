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

/* A new item at the end, or NULL when out of memory (the array as it was). */
static inline void *grow(growbuf *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 1024;
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
		size_t cap = g->cap ? g->cap : 1024;
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
