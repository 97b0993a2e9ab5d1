/* Harris's non-blocking linked-list set, over a pool of nodes: a link is a word holding
 * the next node's index shifted left by one and, in its low bit, whether the node that
 * holds the link is logically deleted. `remove` first marks the node's own link with a
 * CAS, then unlinks it with a CAS on its predecessor's link; `search` unlinks the marked
 * nodes it passes; `add` links a new node with a CAS. Written for tsoser after Burnim,
 * Sen and Stergiou (2010), Table 1 ("harris"): one thread adds 2, one removes 1, one
 * asks whether 1 and 2 are in. Under PSO a new node's key may be buffered after the
 * CAS that links it. */
#include <assert.h>
#include <pthread.h>

#define NODES 5
#define HEAD 0 /* key -1 */
#define TAIL 1 /* key 100 */

int key[NODES];
int links[NODES]; /* next index << 1 | marked */
int used = 2;    /* nodes taken from the pool */

static int next_of(int l) { return l >> 1; }
static int is_marked(int l) { return l & 1; }

/* The first unmarked node with a key >= k in *right, its predecessor in *left;
 * unlinks the marked nodes between them. */
static void search(int k, int *left, int *right) {
    while (1) {
        int pred = HEAD, pred_link = links[HEAD];
        int curr = HEAD, curr_link = links[HEAD];
        /* Find pred (the last unmarked node before k) and the node after it. */
        do {
            if (!is_marked(curr_link)) {
                pred = curr;
                pred_link = curr_link;
            }
            curr = next_of(curr_link);
            if (curr == TAIL)
                break;
            curr_link = links[curr];
        } while (is_marked(curr_link) || key[curr] < k);
        int right_node = curr;
        if (next_of(pred_link) == right_node) {
            if (right_node != TAIL && is_marked(links[right_node]))
                continue;
            *left = pred;
            *right = right_node;
            return;
        }
        /* Unlink the marked nodes between pred and right_node. */
        if (__sync_bool_compare_and_swap(&links[pred], pred_link, right_node << 1)) {
            if (right_node != TAIL && is_marked(links[right_node]))
                continue;
            *left = pred;
            *right = right_node;
            return;
        }
    }
}

static int add(int k) {
    int n = __sync_fetch_and_add(&used, 1);
    assert(n < NODES);
    key[n] = k;
    while (1) {
        int left, right;
        search(k, &left, &right);
        if (right != TAIL && key[right] == k)
            return 0;
        links[n] = right << 1;
        if (__sync_bool_compare_and_swap(&links[left], right << 1, n << 1))
            return 1;
    }
}

static int remove_key(int k) {
    int left, right, right_link;
    while (1) {
        search(k, &left, &right);
        if (right == TAIL || key[right] != k)
            return 0;
        right_link = links[right];
        if (!is_marked(right_link) &&
            __sync_bool_compare_and_swap(&links[right], right_link, right_link | 1))
            break;
    }
    if (!__sync_bool_compare_and_swap(&links[left], right << 1, right_link))
        search(k, &left, &right);
    return 1;
}

static int contains(int k) {
    int left, right;
    search(k, &left, &right);
    return right != TAIL && key[right] == k;
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
    key[HEAD] = -1;
    key[TAIL] = 100;
    /* The set starts as {1}: node 2. */
    key[2] = 1;
    links[2] = TAIL << 1;
    links[HEAD] = 2 << 1;
    used = 3;
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
