/* The Michael-Scott non-blocking queue: a linked list with a dummy head node, whose
 * tail may lag one node behind; enqueuers link a node with a CAS on the last node's
 * `next`, then swing `tail`; dequeuers swing `head`. Written for tsoser after Burnim,
 * Sen and Stergiou (2010), Table 1 ("msn"): a producer enqueues 1 then 2 while a
 * consumer dequeues twice. Every CAS is a locked instruction, so under TSO a node's
 * fields are in memory before it is linked; under PSO the store of a node's value may
 * still be buffered when the CAS links it, and the consumer reads 0. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct node {
    int value;
    struct node *next;
};

struct node *head;
struct node *tail;

static void enqueue(int value) {
    struct node *n = malloc(sizeof(struct node));
    n->value = value;
    n->next = 0;
    while (1) {
        struct node *last = tail;
        struct node *next = last->next;
        if (last != tail)
            continue;
        if (next == 0) {
            if (__sync_bool_compare_and_swap(&last->next, next, n)) {
                __sync_bool_compare_and_swap(&tail, last, n);
                return;
            }
        } else {
            __sync_bool_compare_and_swap(&tail, last, next);
        }
    }
}

/* 1 and the value in *out, or 0 when the queue is empty. */
static int dequeue(int *out) {
    while (1) {
        struct node *first = head;
        struct node *last = tail;
        struct node *next = first->next;
        if (first != head)
            continue;
        if (first == last) {
            if (next == 0)
                return 0;
            __sync_bool_compare_and_swap(&tail, last, next);
        } else {
            int value = next->value;
            if (__sync_bool_compare_and_swap(&head, first, next)) {
                *out = value;
                return 1;
            }
        }
    }
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
