//go:build (linux || darwin) && cgo

// The plugin loader's C; the contract is in plugin.h.

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin.h"

static pbwd_self_fn pbl_self_fn;
__thread pbwd_slot *pbl_tw __attribute__((tls_model("initial-exec")));

void pbl_watch_init(void *self) { pbl_self_fn = (pbwd_self_fn)self; }

pbwd_slot *pbl_attach(void) { return pbl_tw = pbl_self_fn(); }

// The trampolines' first call on a thread (plugin.h): the slot, then the
// trampoline, whose slot is now there.
uintptr_t pbl_create_slow(uintptr_t f, uintptr_t site) {
	pbl_attach();
	return pbl_create(f, site);
}
void pbl_v_slow(uintptr_t f, uintptr_t p, uintptr_t site) {
	pbl_attach();
	pbl_v(f, p, site);
}
int pbl_i_slow(uintptr_t f, uintptr_t p, uintptr_t site) {
	pbl_attach();
	return pbl_i(f, p, site);
}
int pbl_park_for_slow(uintptr_t f, uintptr_t p, int64_t rel, uintptr_t site) {
	pbl_attach();
	return pbl_park_for(f, p, rel, site);
}
void pbl_wait_slow(uintptr_t f, uintptr_t c, uintptr_t m, uintptr_t site) {
	pbl_attach();
	pbl_wait(f, c, m, site);
}
int pbl_wait_for_slow(uintptr_t f, uintptr_t c, uintptr_t m, int64_t rel, uintptr_t site) {
	pbl_attach();
	return pbl_wait_for(f, c, m, rel, site);
}
int pbl_lot_park_slow(uintptr_t f, uint32_t *a, uint32_t expected, int64_t rel, int timed, uintptr_t site) {
	pbl_attach();
	return pbl_lot_park(f, a, expected, rel, timed, site);
}
int pbl_lot1_slow(uintptr_t f, uint32_t *a, uintptr_t site) {
	pbl_attach();
	return pbl_lot1(f, a, site);
}
int pbl_lot2_slow(uintptr_t f, uint32_t *a, uint32_t *b, uintptr_t site) {
	pbl_attach();
	return pbl_lot2(f, a, b, site);
}

void *pbl_open(const char *path, char *err, size_t n) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : "dlopen failed");
	}
	return h;
}

void *pbl_sym(void *h, const char *name, char *err, size_t n) {
	dlerror();
	void *s = dlsym(h, name);
	if (s == NULL) {
		const char *e = dlerror();
		snprintf(err, n, "%s", e ? e : "the symbol is NULL");
	}
	return s;
}

const struct pb_plugin *pbl_table(void *sym) { return ((const struct pb_plugin *(*)(void))sym)(); }

pbwd_foreign *pbl_foreign(const struct pb_impl *impl, const char *lib) {
	pbwd_foreign *f = malloc(sizeof *f);
	if (f == NULL)
		return NULL;
	pbwd_foreign_init(f, impl, impl->name, lib);
	return f;
}
