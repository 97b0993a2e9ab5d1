/* Dekker's mutual exclusion for two threads, each entering its critical section once.
 * Written for tsoser after Burnim, Sen and Stergiou (2010), Table 1 ("dekker").
 * Without a fence between raising its flag and reading the other's, a thread's flag
 * can wait in its store buffer (TSO) and both threads enter: the final assertion of
 * main then fails. */
#include <assert.h>
#include <pthread.h>

int want[2];
int turn;
int inside; /* threads in the critical section */
int entered;

static void lock(int me) {
    int other = 1 - me;
    want[me] = 1;
    while (want[other]) {
        if (turn != me) {
            want[me] = 0;
            while (turn != me) {
            }
            want[me] = 1;
        }
    }
}

static void unlock(int me) {
    turn = 1 - me;
    want[me] = 0;
}

void *worker(void *arg) {
    int me = (int)(long)arg;
    lock(me);
    inside = inside + 1;
    assert(inside == 1);
    entered = entered + 1;
    inside = inside - 1;
    unlock(me);
    return 0;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)(long)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    assert(entered == 2);
    return 0;
}
