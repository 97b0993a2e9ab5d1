/* The Michael-Scott two-lock queue: a linked list with a dummy head node, one lock for
 * enqueuers (the tail) and one for dequeuers (the head), so one enqueue and one
 * dequeue run at once. The locks are test-and-set locks, as in Michael and Scott's
 * paper: taking one is a locked exchange (a run that finds it taken is cut, as
 * Nidhugg's spin-assume cuts a spin loop; the run taking it later is another run),
 * releasing it a plain store. Written for tsoser after Burnim, Sen and Stergiou (2010),
 * Table 1 ("ms2"): a producer enqueues 1 then 2 while a consumer dequeues twice and
 * frees the old dummy nodes. Under PSO a locked exchange waits only for the stores to
 * its own location, so the store of a node's value may still be buffered after the
 * store that links the node, and the consumer reads 0. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

extern void __VERIFIER_assume(int);

struct node {
    int value;
    struct node *next;
};

struct node *head;
struct node *tail;
int head_lock;
int tail_lock;

static void acquire(int *lock) {
    __VERIFIER_assume(__sync_lock_test_and_set(lock, 1) == 0);
}

static void release(int *lock) {
    __sync_lock_release(lock);
}

static void enqueue(int value) {
    struct node *n = malloc(sizeof(struct node));
    n->value = value;
    n->next = 0;
    acquire(&tail_lock);
    tail->next = n;
    tail = n;
    release(&tail_lock);
}

/* 1 and the value in *out, or 0 when the queue is empty. */
static int dequeue(int *out) {
    acquire(&head_lock);
    struct node *dummy = head;
    struct node *first = dummy->next;
    if (first == 0) {
        release(&head_lock);
        return 0;
    }
    *out = first->value;
    head = first;
    release(&head_lock);
    free(dummy);
    return 1;
}

void *producer(void *arg) {
    enqueue(1);
    enqueue(2);
    return 0;
}

void *consumer(void *arg) {
    int a = 0, b = 0;
    int got_a = dequeue(&a);
    int got_b = dequeue(&b);
    if (got_a)
        assert(a == 1);
    if (got_b)
        assert(b == (got_a ? 2 : 1));
    return 0;
}

int main(void) {
    struct node *dummy = malloc(sizeof(struct node));
    dummy->next = 0;
    head = dummy;
    tail = dummy;
    pthread_t p, c;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
