/* Store buffering with C11 atomics. A store to an `atomic_int` is sequentially
 * consistent: compilers make it `xchg` (or `mov` + `mfence`) on x86, so under TSO one
 * thread must see the other's flag, as under SC. With -D RELEASE the stores are
 * release stores, a plain `mov` on x86: a store may wait in its buffer while the load
 * behind it reads memory, and both threads can see 0 under TSO and PSO. The two
 * increments of `count` are locked read-modify-writes and never lose an update. */

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x, y, count;
int seen_x, seen_y;

#ifdef RELEASE
#define PUBLISH(v) atomic_store_explicit(&(v), 1, memory_order_release)
#else
#define PUBLISH(v) ((v) = 1)
#endif

void *left(void *arg) {
  PUBLISH(x);
  seen_y = atomic_load_explicit(&y, memory_order_acquire);
  count++;
  return NULL;
}

void *right(void *arg) {
  PUBLISH(y);
  seen_x = atomic_load(&x);
  atomic_fetch_add(&count, 1);
  return NULL;
}

int main(void) {
  pthread_t l, r;
  pthread_create(&l, NULL, left, NULL);
  pthread_create(&r, NULL, right, NULL);
  pthread_join(l, NULL);
  pthread_join(r, NULL);
  assert(count == 2);
  assert(seen_x == 1 || seen_y == 1);
  return 0;
}
