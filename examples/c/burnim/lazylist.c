/* The lazy list-based set (Heller, Herlihy, Luchangco, Moir, Scherer and Shavit): a
 * sorted linked list between two sentinels, a lock per node; `add` and `remove`
 * traverse without locks, lock the two nodes found, check that they are unmarked and
 * still adjacent, then link or mark and unlink; `contains` takes no lock. Written for
 * tsoser after Burnim, Sen and Stergiou (2010), Table 1 ("lazylist"): one thread adds 2,
 * one removes 1, one asks whether 1 and 2 are in. Under PSO the stores that fill a new
 * node may be buffered after the store that links it, and `contains` follows a null
 * `next`. */
#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

struct node {
    int key;
    int marked;
    struct node *next;
    pthread_mutex_t lock;
};

struct node *first; /* the sentinel with key INT_MIN */

static struct node *new_node(int key, struct node *next) {
    struct node *n = malloc(sizeof(struct node));
    n->key = key;
    n->marked = 0;
    n->next = next;
    pthread_mutex_init(&n->lock, 0);
    return n;
}

static int valid(struct node *pred, struct node *curr) {
    return !pred->marked && !curr->marked && pred->next == curr;
}

static int add(int key) {
    while (1) {
        struct node *pred = first;
        struct node *curr = pred->next;
        while (curr->key < key) {
            pred = curr;
            curr = curr->next;
        }
        pthread_mutex_lock(&pred->lock);
        pthread_mutex_lock(&curr->lock);
        int done = 0, added = 0;
        if (valid(pred, curr)) {
            done = 1;
            if (curr->key != key) {
                pred->next = new_node(key, curr);
                added = 1;
            }
        }
        pthread_mutex_unlock(&curr->lock);
        pthread_mutex_unlock(&pred->lock);
        if (done)
            return added;
    }
}

static int remove_key(int key) {
    while (1) {
        struct node *pred = first;
        struct node *curr = pred->next;
        while (curr->key < key) {
            pred = curr;
            curr = curr->next;
        }
        pthread_mutex_lock(&pred->lock);
        pthread_mutex_lock(&curr->lock);
        int done = 0, removed = 0;
        if (valid(pred, curr)) {
            done = 1;
            if (curr->key == key) {
                curr->marked = 1;
                pred->next = curr->next;
                removed = 1;
            }
        }
        pthread_mutex_unlock(&curr->lock);
        pthread_mutex_unlock(&pred->lock);
        if (done)
            return removed;
    }
}

static int contains(int key) {
    struct node *curr = first;
    while (curr->key < key)
        curr = curr->next;
    return curr->key == key && !curr->marked;
}

void *adder(void *arg) {
    assert(add(2));
    return 0;
}

void *remover(void *arg) {
    assert(remove_key(1));
    return 0;
}

void *reader(void *arg) {
    contains(1);
    contains(2);
    return 0;
}

int main(void) {
    struct node *last = new_node(INT_MAX, 0);
    first = new_node(INT_MIN, new_node(1, last));
    pthread_t t[3];
    pthread_create(&t[0], 0, adder, 0);
    pthread_create(&t[1], 0, remover, 0);
    pthread_create(&t[2], 0, reader, 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    assert(!contains(1));
    assert(contains(2));
    return 0;
}
