//! C11 atomics (docs/c.md, *C11 atomics*): `<stdatomic.h>` read through tsoser's own
//! header, `_Atomic` objects whose stores are `xchg` and whose `+=`/`++` are locked,
//! and the errors for what x86 has no one instruction for.

use std::path::{Path, PathBuf};
use tsoser::explore::dpor::explore_dpor;
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Model};
use tsoser::program::{read_program, read_program_with, Instr, Program, ReadOptions, RmwKind};

const MODELS: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

fn example(defines: &[&str]) -> Program {
    let o = ReadOptions {
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..ReadOptions::default()
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c/stdatomic.c");
    read_program_with(&path, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// A C source written to a fresh directory: its path.
fn source(name: &str, text: &str) -> PathBuf {
    crate::common::source("atomic", name, text)
}

/// Whether an assertion fails, with both engines (which must agree).
fn fails(p: &Program, m: Model) -> bool {
    let c = Config::new(m);
    let s = explore(p, &c);
    let d = explore_dpor(p, &c, false).exploration;
    assert!(s.complete && d.complete, "{m:?}");
    assert_eq!(s.failure.is_some(), d.failure.is_some(), "{m:?}");
    s.failure.is_some()
}

/// Sequentially consistent stores to `atomic_int`s forbid store buffering under TSO
/// and PSO; release stores (plain `mov`s) allow it. The locked increments never lose
/// an update.
#[test]
fn seq_cst_stores_are_xchg_and_release_stores_are_plain() {
    let p = example(&[]);
    assert_eq!(MODELS.map(|m| fails(&p, m)), [false, false, false]);
    let p = example(&["RELEASE"]);
    assert_eq!(MODELS.map(|m| fails(&p, m)), [false, true, true]);
}

/// `x = v`, `x += v`, `x -= v`, `x++`, `--x` on an `_Atomic` global (both spellings)
/// are one locked instruction each; a load is plain; a register local declared
/// `_Atomic` is just a register.
#[test]
fn atomic_objects_store_and_add_with_locked_instructions() {
    let text = "_Atomic int a;\n_Atomic(long) b;\nint plain;\n\
        int main(void) {\n  _Atomic int local = 1;\n  a = 5;\n  b += 2;\n  a -= 1;\n  \
        b++;\n  --a;\n  plain = a + b + local;\n  return 0;\n}\n";
    let p = read_program(&source("objects.c", text)).unwrap();
    let code = &p.threads[0].code;
    let rmws: Vec<&RmwKind> = code
        .iter()
        .filter_map(|i| match i {
            Instr::Rmw(_, _, k, None) => Some(k),
            _ => None,
        })
        .collect();
    assert!(
        matches!(
            rmws[..],
            [
                RmwKind::Xchg(_),
                RmwKind::FetchAdd(_),
                RmwKind::FetchAdd(_),
                RmwKind::FetchAdd(_),
                RmwKind::FetchAdd(_)
            ]
        ),
        "{code:?}"
    );
    assert_eq!(
        code.iter()
            .filter(|i| matches!(i, Instr::Store(..)))
            .count(),
        1,
        "only `plain` is stored plainly: {code:?}"
    );
    let e = explore(&p, &Config::new(Model::Tso));
    // a: 5 - 1 - 1 = 3; b: 2 + 1 = 3; plain = 3 + 3 + 1.
    assert_eq!(e.outcomes.len(), 1);
    assert_eq!(e.outcomes[0].0, vec![3, 3, 7], "{:?}", e.outcomes);
}

/// `+=` and `++` on an `_Atomic` pointer step by the pointee's cells, as C's pointer
/// arithmetic does; `__sync_fetch_and_add` and `__atomic_add_fetch` on a pointer add
/// their operand as it is, as GCC's builtins do (one cell here, one byte there).
#[test]
fn atomic_pointer_arithmetic_scales_and_the_builtins_do_not() {
    let text = "struct S { int a; int b; };
struct S s[4];
struct S *_Atomic p;
struct S *q;
        int main(void) {
  p = s;
  p += 1;
  p++;
  p->a = 5;
  q = s;
          __sync_fetch_and_add(&q, 1);
  q->a = 7;
  __atomic_add_fetch(&q, 2, __ATOMIC_SEQ_CST)->a = 9;
          return 0;
}
";
    let p = read_program(&source("pointers.c", text)).unwrap();
    let e = explore(&p, &Config::new(Model::Sc));
    assert_eq!(e.outcomes.len(), 1, "{:?}", e.outcomes);
    let cells: Vec<String> = p
        .observed()
        .iter()
        .zip(&e.outcomes[0].0)
        .filter(|(_, v)| **v != 0)
        .map(|(pl, v)| format!("{}={v}", p.place_name(pl)))
        .collect();
    // A pointer is a cell number plus one: p = &s[2] (cell 4) after 1 + 2 + 2, and q
    // reaches s[0].b (cell 1) and s[1].b (cell 3) one cell and three cells past s.
    assert_eq!(cells, ["s[0].b=7", "s[1].b=9", "s[2].a=5", "p=5", "q=4"]);
}

/// A compound assignment x86 has no one instruction for is an input error at its
/// place, and so is a C11 function the header does not give.
#[test]
fn atomic_operations_without_one_x86_instruction_are_input_errors() {
    let cases = [
        (
            "#include <stdatomic.h>\natomic_int a;\nint main(void) {\n  a *= 2;\n}\n",
            "mul.c:4:3: a compound assignment other than `+=` and `-=` to an `_Atomic` object",
        ),
        (
            "#include <stdatomic.h>\natomic_int a;\nint main(void) {\n  atomic_fetch_or(&a, 2);\n}\n",
            "or.c:4:3: call to `atomic_fetch_or`, which has no definition",
        ),
    ];
    for (text, want) in cases {
        let name = want.split(':').next().unwrap();
        let e = read_program(&source(name, text))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}\nwant: {want}");
    }
}
