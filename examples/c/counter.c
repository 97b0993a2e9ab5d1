/* Two workers count their visits with a locked fetch-and-add, and bump a shared
 * counter under a test-and-set lock (its spin written as an assume, so that the run
 * that finds the lock taken is cut rather than looped). Under TSO the release store
 * leaves the buffer after the counter's store; under PSO it may leave first, and the
 * other worker then reads the old counter: one increment is lost. With -D FENCED a
 * full barrier before the release keeps the lock sound under PSO too. */

#include <assert.h>
#include <pthread.h>

void __VERIFIER_assume(int);

volatile int lock, counter, visits;

void *worker(void *arg) {
  __sync_fetch_and_add(&visits, 1);
  __VERIFIER_assume(__sync_lock_test_and_set(&lock, 1) == 0);
  counter = counter + 1;
#ifdef FENCED
  __sync_synchronize();
#endif
  __sync_lock_release(&lock);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  int i;
  for (i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  assert(visits == 2);
  assert(counter == 2);
  return 0;
}
