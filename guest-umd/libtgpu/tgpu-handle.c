// SPDX-License-Identifier: MIT
/*
 * libtgpu: the set of live handles, so that a destroyed or made-up
 * context, stream, event, module or function pointer gets an error
 * instead of a crash.  An open-addressed hash table of pointers,
 * tombstones on removal, rebuilt when it fills.
 */
#include <stdlib.h>

#include "tgpu-internal.h"

#define TOMB ((uintptr_t)1)

struct slot {
	uintptr_t key;          /* 0: empty, TOMB: removed */
	enum tu_handle_type type;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *tab;
static size_t cap, used;        /* used counts tombstones too */

static size_t hash(uintptr_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static struct slot *find(uintptr_t k)
{
	size_t i;

	if (!cap)
		return NULL;
	for (i = hash(k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (tab[i].key == k)
			return &tab[i];
		if (!tab[i].key)
			return NULL;
	}
}

static bool grow(void)
{
	size_t ncap = cap ? cap * 2 : 64, i, live = 0;
	struct slot *old = tab, *n;

	for (i = 0; i < cap; i++)
		live += old[i].key > TOMB;
	if (live * 4 < cap)
		ncap = cap;     /* mostly tombstones: rebuild at the same size */
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return false;
	for (i = 0; i < cap; i++) {
		size_t j;

		if (old[i].key <= TOMB)
			continue;
		for (j = hash(old[i].key) & (ncap - 1); n[j].key;
		     j = (j + 1) & (ncap - 1))
			;
		n[j] = old[i];
	}
	free(old);
	tab = n;
	cap = ncap;
	used = live;
	return true;
}

bool tu_handle_add(const void *p, enum tu_handle_type type)
{
	uintptr_t k = (uintptr_t)p;
	bool ok = true;
	size_t i;

	pthread_mutex_lock(&lock);
	if ((used + 1) * 2 > cap && !grow()) {
		ok = false;
		goto out;
	}
	for (i = hash(k) & (cap - 1); tab[i].key > TOMB; i = (i + 1) & (cap - 1))
		;
	if (!tab[i].key)
		used++;
	tab[i].key = k;
	tab[i].type = type;
out:
	pthread_mutex_unlock(&lock);
	return ok;
}

void tu_handle_remove(const void *p)
{
	struct slot *s;

	pthread_mutex_lock(&lock);
	s = find((uintptr_t)p);
	if (s)
		s->key = TOMB;
	pthread_mutex_unlock(&lock);
}

bool tu_handle_valid(const void *p, enum tu_handle_type type)
{
	struct slot *s;
	bool ok;

	if ((uintptr_t)p <= TOMB)
		return false;
	pthread_mutex_lock(&lock);
	s = find((uintptr_t)p);
	ok = s && s->type == type;
	pthread_mutex_unlock(&lock);
	return ok;
}
