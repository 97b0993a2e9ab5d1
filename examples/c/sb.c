/* Store buffering. Each thread raises its own flag, then looks at the other's. Under
 * SC one of them must see the other's flag; under TSO and PSO both may see 0, since a
 * store can wait in its thread's buffer while the load behind it reads memory. With
 * -D FENCED, an mfence between the store and the load closes that window. */

#include <assert.h>
#include <pthread.h>

#ifdef FENCED
#define FENCE() asm volatile("mfence" ::: "memory")
#else
#define FENCE()
#endif

volatile int x, y;
volatile int seen_y, seen_x;

void *left(void *arg) {
  x = 1;
  FENCE();
  seen_y = y;
  return NULL;
}

void *right(void *arg) {
  y = 1;
  FENCE();
  seen_x = x;
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, left, NULL);
  pthread_create(&b, NULL, right, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(seen_y == 1 || seen_x == 1);
  return 0;
}
