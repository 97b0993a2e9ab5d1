/* Lamport's bakery lock for two threads, each entering its critical section once.
 * Written for tsoser after Burnim, Sen and Stergiou (2010), Table 1 ("bakery").
 * A thread takes a ticket one larger than every ticket it sees, then waits for every
 * thread with a smaller ticket (ties broken by thread number). Under TSO the write of
 * `choosing` or of the ticket can stay buffered while the thread reads the others'. */
#include <assert.h>
#include <pthread.h>

#define N 2

int choosing[N];
int ticket[N];
int inside;

static void lock(int me) {
    choosing[me] = 1;
    int max = 0;
    for (int j = 0; j < N; j++) {
        int t = ticket[j];
        if (t > max)
            max = t;
    }
    ticket[me] = max + 1;
    choosing[me] = 0;
    for (int j = 0; j < N; j++) {
        if (j == me)
            continue;
        while (choosing[j]) {
        }
        while (ticket[j] != 0 &&
               (ticket[j] < ticket[me] || (ticket[j] == ticket[me] && j < me))) {
        }
    }
}

static void unlock(int me) { ticket[me] = 0; }

void *worker(void *arg) {
    int me = (int)(long)arg;
    lock(me);
    inside = inside + 1;
    assert(inside == 1);
    inside = inside - 1;
    unlock(me);
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], 0, worker, (void *)(long)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], 0);
    return 0;
}
