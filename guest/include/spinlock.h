/* spinlock.h — test-and-test-and-set lock on the compiler's atomics (x86 xchg, arm64
 * LDAXR/STLXR, ppc32 lwarx/stwcx.). */
#ifndef GUEST_SPINLOCK_H
#define GUEST_SPINLOCK_H

#include "guest.h"

typedef struct {
    u32 locked;
} spinlock_t;

#define SPINLOCK_INIT { 0 }

static inline void spin_lock(spinlock_t *l)
{
    while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
            cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
