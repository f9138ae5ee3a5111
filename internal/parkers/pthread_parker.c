//go:build unix && cgo

// Construction of the pthread parker; the contract is in pthread_parker.h,
// pthread_cgo.go is the Go side.

#include "pthread_parker.h"

pb_parker *pb_new(int mono_attr) {
	pb_parker *p = malloc(sizeof *p);
	if (p == NULL) return NULL;
	pthread_mutex_init(&p->m, NULL);
	pthread_condattr_t a;
	pthread_condattr_init(&a);
#if !defined(__APPLE__) && !defined(__ANDROID__)
	if (mono_attr) pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
#endif
	pthread_cond_init(&p->c, &a);
	pthread_condattr_destroy(&a);
	p->should_park = 0;
	return p;
}

void pb_free(pb_parker *p) {
	pthread_cond_destroy(&p->c);
	pthread_mutex_destroy(&p->m);
	free(p);
}
