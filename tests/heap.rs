//! The bounded heap of C programs (docs/c.md, *The heap*): `malloc`/`calloc` from
//! per-thread, per-site pools, the heap bound, `free` with its use-after-free and
//! double-free failures, and the sizes an allocation may name. Every engine and model
//! must agree on each program.

use crate::common::{stderr, stdout, tsoser_exits};
use std::path::PathBuf;
use tsoser::explore::dpor::explore_dpor;
use tsoser::explore::reach::reach;
use tsoser::explore::states::{explore, Exploration};
use tsoser::explore::{Config, Model};
use tsoser::program::{read_program, read_program_with, Program, ReadOptions};

const MODELS: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

/// A C source written to a fresh directory: its path.
fn source(name: &str, text: &str) -> PathBuf {
    crate::common::source("heap", name, text)
}

fn read(name: &str, text: &str, heap: u32) -> Program {
    let o = ReadOptions {
        heap,
        ..ReadOptions::default()
    };
    read_program_with(&source(name, text), &o).unwrap_or_else(|e| panic!("{e}"))
}

/// The three engines under a model; they must agree on whether an assertion fails and
/// on the runs the bounds cut.
fn engines(p: &Program, m: Model) -> [Exploration; 3] {
    let c = Config::new(m);
    let s = explore(p, &c);
    let d = explore_dpor(p, &c, false).exploration;
    let r = reach(p, &c);
    for (name, e) in [("states", &s), ("dpor", &d), ("reach", &r)] {
        assert!(e.complete, "{} {m:?} {name}", p.name);
        assert_eq!(
            e.failure.is_some(),
            s.failure.is_some(),
            "{} {m:?}: {name} and states disagree",
            p.name
        );
        assert_eq!(e.bound > 0, s.bound > 0, "{} {m:?} {name}", p.name);
    }
    [s, d, r]
}

/// Why the run of an exploration's failure fails.
fn reason(p: &Program, e: &Exploration) -> String {
    let f = e.failure.as_ref().expect("a failure");
    p.failure_reason(f.thread, f.pc)
}

const LIST: &str = "#include <stdlib.h>\n#include <assert.h>\n\
    struct node { int val; struct node *next; };\n\
    int main(void) {\n  struct node *head = 0;\n  int i;\n\
    for (i = 0; i < 3; i++) {\n    struct node *n = malloc(sizeof(struct node));\n    \
    n->val = i; n->next = head; head = n;\n  }\n  int s = 0;\n  \
    while (head) { s += head->val; head = head->next; }\n  assert(s == 3);\n  return 0;\n}\n";

/// A site hands out its pool's objects one after the other; one more than `--heap`
/// cuts the run at the bound, which every engine reports.
#[test]
fn a_pool_hands_out_its_objects_and_one_more_hits_the_bound() {
    let p = read("list.c", LIST, 3);
    for m in MODELS {
        let [s, ..] = engines(&p, m);
        assert_eq!((s.outcomes.len(), s.bound), (1, 0), "{m:?}");
    }
    let p = read("list.c", LIST, 2);
    for m in MODELS {
        let [s, d, r] = engines(&p, m);
        for e in [s, d, r] {
            assert!(e.outcomes.is_empty() && e.bound > 0, "{m:?}");
        }
    }
    // No `free`: no liveness cells, and nothing but the program's own accesses.
    assert!(
        p.locs.iter().all(|l| !l.ends_with(".freed")),
        "{:?}",
        p.locs
    );
}

/// An object allocated by a thread lowered after `main` is reached from `main`'s
/// code (the pools are laid out before any thread in the second pass), and each
/// thread's objects are its own.
#[test]
fn objects_of_a_later_thread_are_reached_from_main() {
    let text = "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
        int *volatile g;\nint *volatile h;\n\
        void *make(void *a) { int *p = malloc(sizeof(int)); *p = 5; g = p; return 0; }\n\
        int main(void) {\n  pthread_t t;\n  h = malloc(sizeof *h);\n  \
        pthread_create(&t, 0, make, 0);\n  pthread_join(t, 0);\n  \
        assert(*g == 5 && g != h && *h == 0);\n  return 0;\n}\n";
    let p = read("later.c", text, 1);
    for m in MODELS {
        let [s, ..] = engines(&p, m);
        assert!(s.failure.is_none(), "{m:?}: {:?}", s.failure);
    }
}

/// `calloc(n, sizeof(T))` and `malloc(n * sizeof(T))` give arrays whose elements start
/// at 0 and are reached by index and pointer arithmetic.
#[test]
fn calloc_and_arrays_of_structs() {
    let text = "#include <stdlib.h>\n#include <assert.h>\nstruct s { int a; int b; };\n\
        int main(void) {\n  int *q = calloc(3, sizeof(int));\n  q[2] = 7;\n  \
        struct s *r = malloc(2 * sizeof(struct s));\n  r[1].b = q[2] + q[0];\n  \
        struct s *t = r + 1;\n  assert(t->b == 7 && r->a == 0 && *(q + 1) == 0);\n  \
        free(q);\n  free(r);\n  return 0;\n}\n";
    let p = read("calloc.c", text, 1);
    for m in MODELS {
        let [s, ..] = engines(&p, m);
        assert!(s.failure.is_none(), "{m:?}: {:?}", s.failure);
    }
}

const UAF: &str = "#include <stdlib.h>\n#include <pthread.h>\n\
    struct node { int val; struct node *next; };\nstruct node *shared;\n\
    void *reader(void *arg) {\n  struct node *n = shared;\n  if (n) { int v = n->val; }\n  \
    return NULL;\n}\nint main(void) {\n  pthread_t t;\n  \
    struct node *n = malloc(sizeof(struct node));\n  n->val = 7;\n  shared = n;\n  \
    pthread_create(&t, NULL, reader, NULL);\n  JOIN1\n  shared = NULL;\n  free(n);\n  \
    JOIN2\n  return 0;\n}\n";

/// A thread that reads a node another thread frees fails the run where it reads, with
/// the reason; joining it before the free makes the program correct.
#[test]
fn a_use_after_free_fails_the_run_with_its_reason() {
    let racy = UAF
        .replace("JOIN1", "")
        .replace("JOIN2", "pthread_join(t, NULL);");
    let p = read("uaf.c", &racy, 1);
    for m in MODELS {
        for e in engines(&p, m) {
            assert_eq!(reason(&p, &e), "use after free", "{m:?}");
            assert_eq!(e.failure.as_ref().unwrap().line, 7, "{m:?}");
        }
    }
    let joined = UAF
        .replace("JOIN1", "pthread_join(t, NULL);")
        .replace("JOIN2", "");
    let p = read("joined.c", &joined, 1);
    for m in MODELS {
        let [s, ..] = engines(&p, m);
        assert!(s.failure.is_none(), "{m:?}: {:?}", s.failure);
    }
}

/// Freeing twice, and freeing what `malloc` did not return, fail the run with their
/// reasons; `free(NULL)` does nothing.
#[test]
fn double_and_foreign_frees_fail_the_run() {
    let cases = [
        (
            "int main(void) {\n  int *p = malloc(sizeof(int));\n  free(0);\n  free(p);\n  free(p);\n}\n",
            "double free",
            5,
        ),
        (
            "int x;\nint main(void) {\n  int *p = malloc(sizeof(int));\n  free(p);\n  free(&x);\n}\n",
            "`free` of a pointer `malloc` did not return",
            5,
        ),
        (
            "int *volatile g;\nint main(void) {\n  int *p = malloc(2 * sizeof(int));\n  g = p + 1;\n  free(g);\n}\n",
            "`free` of a pointer `malloc` did not return",
            5,
        ),
    ];
    for (k, (body, why, line)) in cases.into_iter().enumerate() {
        let p = read(
            &format!("free{k}.c"),
            &format!("#include <stdlib.h>\n{body}"),
            2,
        );
        for m in MODELS {
            for e in engines(&p, m) {
                assert_eq!(reason(&p, &e), why, "case {k} {m:?}");
                assert_eq!(e.failure.as_ref().unwrap().line, line + 1, "case {k} {m:?}");
            }
        }
    }
}

/// An allocation's size must name a type; `sizeof` elsewhere is refused. Each error
/// names the file, line and column.
#[test]
fn allocation_sizes_that_name_no_type_are_input_errors() {
    let cases = [
        (
            "int n;\nint main(void) {\n  int *p = malloc(n);\n}\n",
            "3:19: an allocation's size must be `sizeof(T)`",
        ),
        (
            "int main(void) {\n  int *p = calloc(0, sizeof(int));\n}\n",
            "2:19: `calloc` of no elements",
        ),
        (
            "int main(void) {\n  int *p = malloc(sizeof(p[0]));\n}\n",
            "2:25: `sizeof` of an expression other than a name or `*name`",
        ),
        (
            "int main(void) {\n  int k = sizeof(int);\n  return k;\n}\n",
            "2:11: `sizeof` is supported only as an allocation's size",
        ),
    ];
    for (k, (body, want)) in cases.into_iter().enumerate() {
        let path = source(
            &format!("size{k}.c"),
            &format!("#include <stdlib.h>\n{body}"),
        );
        let e = read_program(&path).map(|_| ()).unwrap_err().to_string();
        let (line, rest) = want.split_once(':').unwrap();
        let want = format!("size{k}.c:{}:{rest}", line.parse::<usize>().unwrap() + 1);
        assert!(e.contains(&want), "case {k}: {e}\nwant: {want}");
    }
}

/// From the CLI: `--heap K` sets the pool size (1 to 64), and a run past it is a bound
/// hit that leaves robustness unknown (exit 3).
#[test]
fn the_heap_bound_from_the_cli() {
    let path = source("cli-list.c", LIST);
    let f = path.to_str().unwrap();
    let o = tsoser_exits(&["explore", f, "--heap", "2"], 3);
    assert!(
        stdout(&o)
            .contains("runs cut by the unrolling bound (--unroll 4) or the heap bound (--heap 2)"),
        "{}",
        stdout(&o)
    );
    tsoser_exits(&["explore", f, "--heap", "3", "--no-robustness"], 0);
    let o = tsoser_exits(&["explore", f, "--heap", "0"], 2);
    assert!(stderr(&o).contains("--heap"), "{}", stderr(&o));
}
