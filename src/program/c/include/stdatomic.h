/* tsoser's <stdatomic.h>: C11 atomics as the __atomic builtins tsoser reads
 * (docs/c.md, "C11 atomics"). The preprocessor finds this file before the compiler's
 * own header, whose macros use statement expressions and __auto_type. Orders are
 * GCC's numbers; on x86 only a sequentially consistent store (xchg) and a sequentially
 * consistent fence (mfence) differ from plain accesses. */
#ifndef TSOSER_STDATOMIC_H
#define TSOSER_STDATOMIC_H

typedef enum {
  memory_order_relaxed = 0,
  memory_order_consume = 1,
  memory_order_acquire = 2,
  memory_order_release = 3,
  memory_order_acq_rel = 4,
  memory_order_seq_cst = 5
} memory_order;

typedef _Atomic _Bool atomic_bool;
typedef _Atomic char atomic_char;
typedef _Atomic signed char atomic_schar;
typedef _Atomic unsigned char atomic_uchar;
typedef _Atomic short atomic_short;
typedef _Atomic unsigned short atomic_ushort;
typedef _Atomic int atomic_int;
typedef _Atomic unsigned int atomic_uint;
typedef _Atomic long atomic_long;
typedef _Atomic unsigned long atomic_ulong;
typedef _Atomic long long atomic_llong;
typedef _Atomic unsigned long long atomic_ullong;
typedef _Atomic long atomic_intptr_t;
typedef _Atomic unsigned long atomic_uintptr_t;
typedef _Atomic unsigned long atomic_size_t;
typedef _Atomic long atomic_ptrdiff_t;
typedef _Atomic _Bool atomic_flag;

#define ATOMIC_VAR_INIT(v) (v)
#define ATOMIC_FLAG_INIT 0
#define kill_dependency(y) (y)
#define atomic_init(p, v) ((void)(*(p) = (v)))

#define atomic_thread_fence(mo) __atomic_thread_fence(mo)
#define atomic_signal_fence(mo) ((void)(mo))

#define atomic_store_explicit(p, v, mo) __atomic_store_n(p, v, mo)
#define atomic_store(p, v) __atomic_store_n(p, v, memory_order_seq_cst)
#define atomic_load_explicit(p, mo) __atomic_load_n(p, mo)
#define atomic_load(p) __atomic_load_n(p, memory_order_seq_cst)
#define atomic_exchange_explicit(p, v, mo) __atomic_exchange_n(p, v, mo)
#define atomic_exchange(p, v) __atomic_exchange_n(p, v, memory_order_seq_cst)
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f) \
  __atomic_compare_exchange_n(p, e, d, 0, s, f)
#define atomic_compare_exchange_strong(p, e, d) \
  __atomic_compare_exchange_n(p, e, d, 0, memory_order_seq_cst, memory_order_seq_cst)
/* x86's cmpxchg never fails spuriously: a weak exchange is a strong one. */
#define atomic_compare_exchange_weak_explicit(p, e, d, s, f) \
  __atomic_compare_exchange_n(p, e, d, 1, s, f)
#define atomic_compare_exchange_weak(p, e, d) \
  __atomic_compare_exchange_n(p, e, d, 1, memory_order_seq_cst, memory_order_seq_cst)
#define atomic_fetch_add_explicit(p, v, mo) __atomic_fetch_add(p, v, mo)
#define atomic_fetch_add(p, v) __atomic_fetch_add(p, v, memory_order_seq_cst)
#define atomic_fetch_sub_explicit(p, v, mo) __atomic_fetch_sub(p, v, mo)
#define atomic_fetch_sub(p, v) __atomic_fetch_sub(p, v, memory_order_seq_cst)

#define atomic_flag_test_and_set_explicit(p, mo) __atomic_exchange_n(p, 1, mo)
#define atomic_flag_test_and_set(p) __atomic_exchange_n(p, 1, memory_order_seq_cst)
#define atomic_flag_clear_explicit(p, mo) __atomic_store_n(p, 0, mo)
#define atomic_flag_clear(p) __atomic_store_n(p, 0, memory_order_seq_cst)

#endif
