//! C programs read directly (docs/c.md): the examples of `examples/c` under every model
//! and both engines, each kind of input error, and the TACAS'15 benchmarks' C sources
//! (`../shared/external/tacas15-c`, skipped when absent) read or refused clearly
//! (their verdicts and counts: tests/tacas15.rs).

use crate::common;
use std::path::{Path, PathBuf};
use tsoser::explore::dpor::explore_dpor;
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Incomplete, Model};
use tsoser::program::{read_program, read_program_with, LoopBound, Program, ReadOptions};

const MODELS: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

fn read_c(path: &Path, defines: &[&str]) -> Program {
    let o = ReadOptions {
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..ReadOptions::default()
    };
    read_program_with(path, &o).unwrap_or_else(|e| panic!("{e}"))
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/c")
        .join(name)
}

/// Whether an assertion fails, with the states engine and with DPOR (which must agree).
fn fails(p: &Program, model: Model) -> bool {
    let c = Config::new(model);
    let s = explore(p, &c);
    let d = explore_dpor(p, &c, false);
    assert!(
        s.complete && d.exploration.complete,
        "{} under {model:?}",
        p.name
    );
    assert_eq!(
        s.failure.is_some(),
        d.exploration.failure.is_some(),
        "{} under {model:?}: the engines disagree",
        p.name
    );
    s.failure.is_some()
}

/// Store buffering fails under TSO and PSO only; its `-D FENCED` variant nowhere.
#[test]
fn store_buffering_needs_a_fence() {
    let p = read_c(&example("sb.c"), &[]);
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(got, [false, true, true]);
    let p = read_c(&example("sb.c"), &["FENCED"]);
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(got, [false, false, false]);
}

/// The test-and-set lock loses an increment under PSO only, and not with a barrier
/// before its release; the locked fetch-and-add never does.
#[test]
fn a_test_and_set_lock_needs_a_barrier_under_pso() {
    let p = read_c(&example("counter.c"), &[]);
    assert_eq!(p.threads.len(), 3, "main and the two workers of the loop");
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(got, [false, false, true]);
    let p = read_c(&example("counter.c"), &["FENCED"]);
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(got, [false, false, false]);
}

/// A C source written to a fresh directory: its path.
fn source(name: &str, text: &str) -> PathBuf {
    crate::common::source("c", name, text)
}

/// The error reading a C file, as the CLI prints it.
fn error(path: &Path) -> String {
    read_program(path).map(|_| ()).unwrap_err().to_string()
}

/// Each kind of bad input is an error naming the file, line and column and the
/// construct (or the preprocessor's own message), never a panic.
#[test]
fn bad_c_is_an_input_error_with_its_place() {
    let p = source(
        "float.c",
        "int main(void) {\n  float f = 1;\n  return 0;\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("float.c:2:3: floating-point types are not supported"),
        "{e}"
    );

    let p = source(
        "recursion.c",
        "int f(int n) { return n ? f(n - 1) : 0; }\nint main(void) {\n  return f(2);\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("recursion.c:1:27: recursion: `f` calls itself"),
        "{e}"
    );

    // A join inside an atomic block would wait for a thread that cannot run.
    let p = source(
        "atomic-join.c",
        "#include <pthread.h>\nvoid __VERIFIER_atomic_begin(void);\nvoid *f(void *a) { return 0; }\n\
         int main(void) {\n  pthread_t t;\n  pthread_create(&t, 0, f, 0);\n  __VERIFIER_atomic_begin();\n  \
         pthread_join(t, 0);\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("atomic-join.c:8:3: `pthread_join` inside an atomic block"),
        "{e}"
    );

    let p = source(
        "undefined.c",
        "void g(void);\nint main(void) {\n  g();\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("undefined.c:3:3: call to `g`, which has no definition"),
        "{e}"
    );

    let p = source("syntax.c", "int main(void) {\n  return 0 0;\n}\n");
    let e = error(&p);
    assert!(
        e.contains("syntax.c:2:12: syntax error: expected one of"),
        "{e}"
    );

    let p = source(
        "cpp.c",
        "#include \"no-such-header.h\"\nint main(void) { return 0; }\n",
    );
    let e = error(&p);
    assert!(e.contains("cannot preprocess: the preprocessor"), "{e}");
    assert!(e.contains("no-such-header.h"), "{e}");

    let p = source("goto.c", "int main(void) {\n  goto out;\n  return 0;\n}\n");
    let e = error(&p);
    assert!(
        e.contains("goto.c:2:3: `goto out`: `main` has no label `out`"),
        "{e}"
    );

    // Threads made in a loop whose bound is only known at run time.
    let p = source(
        "unbounded.c",
        "#include <pthread.h>\nvolatile int n;\nvoid *f(void *a) { return 0; }\nint main(void) {\n  \
         pthread_t t[4];\n  int i;\n  for (i = 0; i < n; i++)\n    pthread_create(&t[i], 0, f, 0);\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("unbounded.c:8:5: `pthread_create` in a loop not unrolled when read"),
        "{e}"
    );
    let p = source(
        "forever.c",
        "#include <pthread.h>\nvoid *f(void *a) { pthread_t t; pthread_create(&t, 0, f, 0); return 0; }\n\
         int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); }\n",
    );
    let e = error(&p);
    assert!(
        e.contains("forever.c:2:") && e.contains("more than 64 threads"),
        "{e}"
    );

    let missing = Path::new("no/such/file.c");
    let e = error(missing);
    assert!(e.starts_with("no/such/file.c: cannot read"), "{e}");
}

/// Without a preprocessor on the PATH, a `.c` file is a clear error (exit 2), while a
/// `.i` file is read as it is.
#[test]
fn a_missing_preprocessor_is_named() {
    let c = source(
        "plain.c",
        "volatile int x;\nint main(void) { x = 1; return 0; }\n",
    );
    let i = c.with_extension("i");
    std::fs::copy(&c, &i).unwrap();
    let run = |f: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tsoser"))
            .args(["explore", f.to_str().unwrap(), "--no-robustness"])
            .env("PATH", "/nonexistent")
            .output()
            .unwrap()
    };
    let o = run(&c);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("no C preprocessor: neither `cpp` nor `gcc` is on the PATH"),
        "{}",
        common::stderr(&o)
    );
    let o = run(&i);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(common::stdout(&o).contains("x=1"), "{}", common::stdout(&o));
}

/// `explore -D` reaches the preprocessor.
#[test]
fn explore_passes_defines_to_the_preprocessor() {
    let sb = "examples/c/sb.c";
    common::tsoser_exits(&["explore", sb, "--model", "tso", "--no-robustness"], 1);
    common::tsoser_exits(
        &[
            "explore",
            sb,
            "--model",
            "tso",
            "--no-robustness",
            "-D",
            "FENCED",
        ],
        0,
    );
}

/// The TACAS'15 suite as published, if it is there.
pub(crate) fn suite() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external/tacas15-c/benchmarks");
    if dir.is_dir() {
        return Some(dir);
    }
    // Written past the test harness's capture, so a plain `cargo test` shows it.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: the TACAS'15 C benchmarks are not at {}",
        dir.display()
    );
    None
}

/// Every C file of the suite is read, or refused with a message naming its place:
/// the two Apache Portable Runtime tests (apr_1, apr_2) use the library's opaque
/// types, outside the subset.
#[test]
fn every_tacas15_file_is_read_or_refused_clearly() {
    let Some(dir) = suite() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 18);
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        match read_program(&f) {
            Ok(p) => assert!(
                !name.starts_with("apr_"),
                "{name} read: {}",
                p.threads.len()
            ),
            Err(e) => {
                assert!(name.starts_with("apr_"), "{name}: {e}");
                assert!(
                    e.to_string().contains("apr_thread_mutex.h:41:9: struct"),
                    "{e}"
                );
            }
        }
    }
}

/// Mutated C never panics the front end or the explorer: each line of the examples'
/// (and, when present, the TACAS'15 files') own code deleted in turn, read as a `.i`
/// file, and when it still reads, explored for a few executions under each model.
#[test]
fn mutated_c_is_read_or_refused_without_panics() {
    use tsoser::program::c::preprocess::preprocess;
    let mut files = vec![example("sb.c"), example("counter.c")];
    if let Some(dir) = suite() {
        for f in [
            "dekker",
            "dcl_singleton",
            "indexer",
            "parker",
            "stack_unsafe",
            "pgsql_bnd",
        ] {
            files.push(dir.join(format!("{f}.c")));
        }
    }
    let (mut read, mut refused) = (0, 0);
    for f in files {
        let text = preprocess(&f, &ReadOptions::default()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The file's own code: after the last line marker naming a header.
        let own = lines
            .iter()
            .rposition(|l| l.starts_with('#') && l.contains(".h\""))
            .unwrap_or(0);
        for k in own..lines.len() {
            if lines[k].trim().is_empty() || lines[k].starts_with('#') {
                continue;
            }
            let mutated: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, l)| *l)
                .collect();
            let path = source("mutated.i", &mutated.join("\n"));
            let name = format!("{} without line {k}", f.display());
            let outcome = std::panic::catch_unwind(|| match read_program(&path) {
                Ok(p) => {
                    for m in MODELS {
                        let c = Config::new(m).max_executions(200);
                        explore_dpor(&p, &c, false);
                    }
                    true
                }
                Err(e) => {
                    // `file:line:col: …`, the file named by the line markers.
                    let e = e.to_string();
                    let place: Vec<&str> = e.split(": ").next().unwrap().rsplitn(3, ':').collect();
                    assert!(
                        place.len() == 3 && place[..2].iter().all(|n| n.parse::<usize>().is_ok()),
                        "{e}"
                    );
                    false
                }
            });
            match outcome {
                Ok(true) => read += 1,
                Ok(false) => refused += 1,
                Err(_) => panic!("{name}: panicked"),
            }
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}

/// A pointer known only at run time is dereferenced by comparing it with every cell of
/// its type whose address the program takes — also where the address is taken in a
/// thread lowered after the dereference (a second lowering pass) — and NULL fails.
#[test]
fn a_run_time_pointer_reaches_cells_whose_address_is_taken_later() {
    let text = "#include <pthread.h>\n#include <assert.h>\nint a, b;\nint *volatile p;\n\
                void *reader(void *x) { int *q = p; if (q) *q = 5; return 0; }\n\
                void *writer(void *x) { p = &b; return 0; }\n\
                int main(void) {\n  pthread_t r, w;\n  pthread_create(&r, 0, reader, 0);\n  \
                pthread_create(&w, 0, writer, 0);\n  pthread_join(r, 0);\n  pthread_join(w, 0);\n  \
                assert(a == 0);\n  return 0;\n}\n";
    let p = read_c(&source("later.c", text), &[]);
    for m in MODELS {
        let e = explore(&p, &Config::new(m));
        assert!(e.complete && e.failure.is_none(), "{m:?}: {:?}", e.failure);
        // (a, b, p) at the end: b is 5 when the reader follows the writer's pointer.
        let b: Vec<i64> = e.outcomes.iter().map(|o| o.0[1]).collect();
        assert!(b.contains(&0) && b.contains(&5), "{m:?}: {:?}", e.outcomes);
    }
    let null = "int *volatile p;\nint main(void) {\n  int *q = p;\n  return *q;\n}\n";
    let p = read_c(&source("null.c", null), &[]);
    assert!(explore(&p, &Config::new(Model::Sc)).failure.is_some());
}

/// GCC's `$` in identifiers, as SV-COMP's generated `.i` files write them
/// (`main$tmp_guard0`): read with `_` for `$`; where that name is taken already, the
/// `$` stays and the parser names its place.
/// Two threads take a read-write lock in `__VERIFIER_atomic_*` functions and in
/// `__VERIFIER_atomic_begin`/`_end`: each block is one step, so the check-then-set
/// never interleaves, and `abort()` drops the run (it is no error). Bug
/// svcomp_atomic_functions_were_inlined_as_plain_code: read as plain code, the blocks
/// interleaved and SV-COMP's read_write_lock-1 (expected true) failed.
#[test]
fn svcomp_atomic_blocks_run_as_one_step() {
    let text = |atomic: &str| {
        format!(
            "#include <pthread.h>\nvoid __VERIFIER_atomic_begin(void);\nvoid __VERIFIER_atomic_end(void);\n\
             void reach_error(void);\nint w, n;\n\
             void {atomic}take(void) {{\n  if (w != 0) abort();\n  w = 1;\n}}\n\
             void *f(void *a) {{\n  {atomic}take();\n  n = n + 1;\n  if (n != 1) reach_error();\n  \
             __VERIFIER_atomic_begin();\n  n = n - 1;\n  w = 0;\n  __VERIFIER_atomic_end();\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t a, b;\n  pthread_create(&a, 0, f, 0);\n  \
             pthread_create(&b, 0, f, 0);\n  return 0;\n}}\n"
        )
    };
    let p = read_program(&source("rwlock-atomic.c", &text("__VERIFIER_atomic_"))).unwrap();
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(got, [false, false, false]);
    let p = read_program(&source("rwlock-plain.c", &text("plain_"))).unwrap();
    let got: Vec<bool> = MODELS.iter().map(|&m| fails(&p, m)).collect();
    assert_eq!(
        got,
        [true, true, true],
        "without the blocks both threads take the lock"
    );
}

#[test]
fn dollar_signs_in_identifiers_are_read() {
    let p = source(
        "dollar.i",
        "int main$guard = 1;\nint main(void) {\n  main$guard = 2;\n  return 0;\n}\n",
    );
    let prog = read_program(&p).unwrap();
    assert!(
        prog.locs.iter().any(|l| l == "main_guard"),
        "{:?}",
        prog.locs
    );
    let p = source(
        "dollar-taken.i",
        "int a_b;\nint a$b;\nint main(void) {\n  return 0;\n}\n",
    );
    assert!(
        error(&p).contains("dollar-taken.i:2:6: syntax error"),
        "{}",
        error(&p)
    );
}

/// `__VERIFIER_nondet_*`: each value its own run; a range that leaves out values of
/// the type is NONDET CUT (the answer holds for those values only, never "safe"), a
/// nondet call used only for its truth takes 0 and 1 and is never cut, and the
/// schedule of a failure names the value (`main=2`) and replays.
#[test]
fn nondet_values_are_explored_and_a_cut_range_is_reported() {
    let p = source(
        "nondet.c",
        "void reach_error(void);\nint __VERIFIER_nondet_int(void);\n\
         int main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x == 2) reach_error();\n  return 0;\n}\n",
    );
    let f = p.to_str().unwrap();
    // The default range -1..2 holds 2: the failure, with the value in its schedule.
    let o = common::tsoser_exits(&["explore", f, "--model", "sc"], 1);
    let out = common::stdout(&o);
    assert!(out.contains("--replay \"main=2\""), "{out}");
    let o = common::tsoser_exits(&["explore", f, "--model", "sc", "--replay", "main=2"], 0);
    assert!(
        common::stdout(&o).contains("main: assert fails (line 5)"),
        "{}",
        common::stdout(&o)
    );
    // 0..1 leaves 2 out: no failure, but the answer is cut, also in JSON.
    let o = common::tsoser_exits(&["explore", f, "--model", "sc", "--nondet", "0..1"], 0);
    let out = common::stdout(&o);
    assert!(
        out.contains("NONDET CUT: a `nondet` (line 4) takes only part of its type's values"),
        "{out}"
    );
    let o = common::tsoser_exits(
        &["explore", f, "--model", "sc", "--nondet", "0..1", "--json"],
        0,
    );
    assert!(
        common::stdout(&o).contains("\"nondet_cut\": 4"),
        "{}",
        common::stdout(&o)
    );
    // A bad range is a usage error.
    let o = common::tsoser_exits(&["explore", f, "--nondet", "3..1"], 2);
    assert!(common::stderr(&o).contains("a range `LO..HI` of 1 to 256 values"));

    // Used for its truth only: 0 and 1 stand for every value, never cut.
    let p = source(
        "nondet-truth.c",
        "void reach_error(void);\nint __VERIFIER_nondet_int(void);\nint x;\n\
         int main(void) {\n  if (__VERIFIER_nondet_int()) x = 1;\n  if (!__VERIFIER_nondet_int()) x = x + 2;\n  \
         if (x == 3) reach_error();\n  return 0;\n}\n",
    );
    let prog = read_program(&p).unwrap();
    let e = explore(&prog, &Config::new(Model::Sc));
    assert!(e.failure.is_some() && e.nondet_cut.is_none());
    // x = 0, 1, 2; x = 3 fails.
    assert_eq!(e.outcomes.len(), 3, "{:?}", e.outcomes);

    // A bool is never cut; a float nondet, or a range outside the type, is an error.
    let p = source(
        "nondet-bool.c",
        "_Bool __VERIFIER_nondet_bool(void);\nint x;\nint main(void) {\n  x = __VERIFIER_nondet_bool();\n  return 0;\n}\n",
    );
    let e = explore(&read_program(&p).unwrap(), &Config::new(Model::Sc));
    assert_eq!(e.outcomes.len(), 2);
    assert!(e.nondet_cut.is_none());
    let p = source(
        "nondet-float.c",
        "float __VERIFIER_nondet_float(void);\nint main(void) {\n  __VERIFIER_nondet_float();\n  return 0;\n}\n",
    );
    let e = error(&p);
    assert!(
        e.contains("nondet-float.c:3:3: `__VERIFIER_nondet_float`: only the integer and `bool` nondet functions are supported"),
        "{e}"
    );
    let p = source(
        "nondet-uchar.c",
        "unsigned char __VERIFIER_nondet_uchar(void);\nint x;\nint main(void) {\n  x = __VERIFIER_nondet_uchar();\n  return 0;\n}\n",
    );
    let o = common::tsoser_exits(&["explore", p.to_str().unwrap(), "--nondet=-5..-1"], 2);
    assert!(
        common::stderr(&o).contains("nondet-uchar.c:4:7: `__VERIFIER_nondet_uchar`: no value of its type lies in the `--nondet` range -5..-1"),
        "{}",
        common::stderr(&o)
    );
}

/// Bug svcomp_reach_error_defined_empty_was_inlined: SV-COMP's tasks define
/// `void reach_error(){}`, and its call was inlined as that empty body, so the task had
/// no assertion at all; the call itself is the error.
#[test]
fn svcomp_reach_error_defined_empty_was_inlined() {
    let p = source(
        "reach-error.c",
        "void reach_error(){}\nint x = 1;\nint main(void) {\n  if (x == 1) reach_error();\n  return 0;\n}\n",
    );
    let e = explore(&read_program(&p).unwrap(), &Config::new(Model::Sc));
    let f = e.failure.expect("reach_error is reached");
    assert_eq!(f.line, 4);
}

/// `switch`: a branch to the matching `case` or `default`, fall-through to the next
/// case, `break` out of the switch, `continue` to the enclosing loop; a duplicate or
/// non-constant `case`, a second `default` and a case range are input errors.
#[test]
fn switch_falls_through_breaks_and_continues() {
    let p = source(
        "switch.c",
        "int x, y;\nvoid __VERIFIER_assert(int);\nint main(void) {\n  int i;\n  for (i = 0; i < 3; i++) {\n    \
         switch (x) {\n    case 0:\n      y = y + 1;\n    case 1:\n      y = y + 10;\n      break;\n    \
         default:\n      if (i == 2) continue;\n      y = y + 100;\n    }\n    x = x + 1;\n  }\n  \
         __VERIFIER_assert(y == 21 && x == 2);\n  return 0;\n}\n",
    );
    let e = explore(&read_program(&p).unwrap(), &Config::new(Model::Sc));
    assert!(e.complete && e.failure.is_none(), "{:?}", e.failure);
    for (name, text, want) in [
        (
            "twice.c",
            "int main(void) {\n  switch (1) { case 1: case 1: break; }\n}\n",
            "twice.c:2:24: `case 1` appears twice in one `switch`",
        ),
        (
            "defaults.c",
            "int main(void) {\n  switch (1) { default: default: break; }\n}\n",
            "defaults.c:2:25: a second `default` in one `switch`",
        ),
        (
            "range.c",
            "int g;\nint main(void) {\n  switch (g) { case 1 ... 3: break; }\n}\n",
            "range.c:3:16: case ranges (`case A ... B`) are not supported",
        ),
        (
            "notconst.c",
            "int g;\nint main(void) {\n  switch (g) { case g: break; }\n}\n",
            "notconst.c:3:21: a `case` label must be a constant",
        ),
    ] {
        let e = error(&source(name, text));
        assert!(e.contains(want), "{e}");
    }
}

/// `suite` reads its C programs as `explore` does: with `--nondet 4..5` the value that
/// fails the assertion is taken, and the expected verdict matches.
#[test]
fn suite_reads_c_with_explores_flags() {
    let five = source(
        "five.c",
        "void reach_error(void);\nint main(void) {\n  int v = __VERIFIER_nondet_int();\n  \
         if (v == 5) reach_error();\n  return 0;\n}\n",
    );
    let dir = five.parent().unwrap();
    std::fs::write(dir.join("expected.csv"), "five.c,1\n").unwrap();
    let csv = dir.join("expected.csv");
    let args = [
        "suite",
        dir.to_str().unwrap(),
        "--expected",
        csv.to_str().unwrap(),
    ];
    let o = common::tsoser_exits(&args, 3);
    assert!(
        common::stdout(&o).contains("0 match"),
        "{}",
        common::stdout(&o)
    );
    let o = common::tsoser_exits(&[&args[..], &["--nondet", "4..5"]].concat(), 0);
    assert!(
        common::stdout(&o).contains("1 match"),
        "{}",
        common::stdout(&o)
    );
}

/// `suite` over a folder of C programs with SV-COMP's manifest: each program's verdict
/// is whether an assertion fails, compared with the `unreach-call` rows (others are
/// ignored); a wrong expectation is a mismatch (exit 1).
#[test]
fn suite_reads_c_programs_against_an_svcomp_manifest() {
    let dir = std::env::temp_dir().join(format!("tsoser-c-suite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let safe = "int x;\nvoid reach_error(void);\nint main(void) {\n  x = 1;\n  if (x != 1) reach_error();\n  return 0;\n}\n";
    let bad = "int x;\nvoid reach_error(void);\nint main(void) {\n  x = 1;\n  if (x == 1) reach_error();\n  return 0;\n}\n";
    std::fs::write(dir.join("safe.c"), safe).unwrap();
    std::fs::write(dir.join("bad.i"), bad).unwrap();
    let manifest = |safe_verdict: &str| {
        format!(
            "task,input_file,property,expected_verdict\nsafe,safe.c,unreach-call,{safe_verdict}\n\
             safe,safe.c,termination,false\nbad,bad.i,unreach-call,false\n"
        )
    };
    std::fs::write(dir.join("MANIFEST.csv"), manifest("true")).unwrap();
    let d = dir.to_str().unwrap();
    let m = dir.join("MANIFEST.csv");
    let args = [
        "suite",
        d,
        "--expected",
        m.to_str().unwrap(),
        "--model",
        "sc",
    ];
    let o = common::tsoser_exits(&args, 0);
    assert!(
        common::stdout(&o).contains("2 tests under SC: 2 match, 0 mismatches"),
        "{}",
        common::stdout(&o)
    );
    let mut json = args.to_vec();
    json.push("--json");
    let o = common::tsoser_exits(&json, 0);
    assert!(common::stdout(&o).contains("\"asks\": \"assertion\""));
    std::fs::write(dir.join("MANIFEST.csv"), manifest("false")).unwrap();
    let o = common::tsoser_exits(&args, 1);
    assert!(
        common::stdout(&o).contains("MISMATCH  safe.c: an assertion fails: false (expected true)"),
        "{}",
        common::stdout(&o)
    );
    std::fs::write(
        dir.join("MANIFEST.csv"),
        "task,input_file,property,expected_verdict\nsafe,safe.c,unreach-call,maybe\n",
    )
    .unwrap();
    let o = common::tsoser_exits(&args, 2);
    assert!(
        common::stderr(&o).contains("MANIFEST.csv:2: expected true or false, found `maybe`"),
        "{}",
        common::stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chain of distinct functions, each calling the next, is inlined one frame of the
/// lowering per call: past 64 it is an input error at the call (3,000 of them aborted
/// the process with a stack overflow; found by fuzz_c's helper run).
#[test]
fn deeply_inlined_calls_are_an_input_error() {
    let n = 3000;
    let mut text = String::from("int f0(void) { return 1; }\n");
    for i in 1..n {
        text += &format!("int f{i}(void) {{ return f{}() + 1; }}\n", i - 1);
    }
    text += &format!("int main(void) {{ return f{}(); }}\n", n - 1);
    let e = error(&source("inlined.c", &text));
    assert!(
        e.contains("inlined.c:2938:26: `f2936`: calls nested more than 64 deep"),
        "{e}"
    );
    // 60 deep reads.
    let mut text = String::from("int x;\nint f0(void) { return 1; }\n");
    for i in 1..60 {
        text += &format!("int f{i}(void) {{ return f{}() + 1; }}\n", i - 1);
    }
    text += "int main(void) { x = f59(); return 0; }\n";
    let p = read_program(&source("inlined-60.c", &text)).unwrap();
    let e = explore(&p, &Config::new(Model::Sc));
    assert_eq!(e.outcomes.len(), 1);
}

/// Bug a_mutex_call_without_arguments_is_an_error (found by the million-input run of
/// fuzz_c): `pthread_mutex_init()` took its mutex before its arity was checked, and
/// the lowering panicked. Each mutex call with too few arguments is an input error.
#[test]
fn a_mutex_call_without_arguments_is_an_error() {
    for (call, n) in [
        ("pthread_mutex_init()", 2),
        ("pthread_mutex_lock()", 1),
        ("pthread_mutex_unlock()", 1),
        ("pthread_mutex_destroy()", 1),
    ] {
        let name = call.trim_end_matches("()");
        let p = source(
            &format!("{name}.c"),
            &format!("int main(void) {{\n  {call};\n  return 0;\n}}\n"),
        );
        let e = error(&p);
        assert!(
            e.contains(&format!(
                "{name}.c:2:3: `{name}` takes {n} arguments, not 0"
            )),
            "{e}"
        );
    }
}

/// `--loop-bound entry` bounds each loop to N backward jumps per entry to it, where
/// `--unroll N` counts them per thread: a loop of 3 passes around one of 2 (9 backward
/// jumps in all) fits a per-entry bound of 3, not a per-thread one; a per-entry bound of
/// 2 cuts the outer loop (BOUND HIT, naming the bound), also with the reach engine,
/// which has no bound of its own. The bound is in the program, which prints as `.prog`
/// and reads back.
#[test]
fn loops_are_bounded_per_entry_with_loop_bound_entry() {
    use tsoser::explore::reach::reach;
    use tsoser::program::parse::parse_program;
    use tsoser::program::print::to_prog;
    let text = "volatile int n = 2, m = 3, x;\nint main(void) {\n  int i, j;\n  \
                for (i = 0; i < m; i++)\n    for (j = 0; j < n; j++)\n      x = x + 1;\n  \
                return 0;\n}\n";
    let f = source("nested.c", text);
    let read = |bound| {
        let o = ReadOptions {
            loop_bound: bound,
            ..ReadOptions::default()
        };
        read_program_with(&f, &o).unwrap()
    };
    let sc = Config::new(Model::Sc);
    // Per thread: 9 backward jumps pass 3.
    let e = explore(&read(LoopBound::Thread), &sc.unroll(3));
    assert!(e.bound > 0 && e.outcomes.is_empty(), "{e:?}");
    // Per entry: 3 and 2 fit 3 (the explorer's own bound, 0 here, does not apply).
    let p = read(LoopBound::Entry(Some(3)));
    assert_eq!(p.loop_bound, Some(3));
    for e in [
        explore(&p, &sc.unroll(0)),
        explore_dpor(&p, &sc.unroll(0), false).exploration,
        reach(&p, &sc),
    ] {
        assert_eq!(e.bound, 0, "{e:?}");
        assert_eq!(e.outcomes.len(), 1);
        assert!(e.outcomes[0].0.contains(&6), "x = 6: {:?}", e.outcomes);
    }
    // The outer loop's third backward jump passes 2.
    let p = read(LoopBound::Entry(Some(2)));
    for e in [
        explore(&p, &sc),
        explore_dpor(&p, &sc, false).exploration,
        reach(&p, &sc),
    ] {
        assert!(e.bound > 0 && e.outcomes.is_empty(), "{e:?}");
    }
    let back = parse_program(&to_prog(&p)).unwrap();
    assert_eq!(back.loop_bound, Some(2));
    assert_eq!(to_prog(&back), to_prog(&p));
    // The file's own `/* BOUND N */` when --unroll is not given.
    let g = source("bounded.c", &format!("/* BOUND 3 */\n{text}"));
    let o = ReadOptions {
        loop_bound: LoopBound::Entry(None),
        ..ReadOptions::default()
    };
    assert_eq!(read_program_with(&g, &o).unwrap().loop_bound, Some(3));

    let name = f.to_str().unwrap();
    let args = ["explore", name, "--model", "sc", "--loop-bound", "entry"];
    let o = common::tsoser_exits(&[&args[..], &["--unroll", "2"]].concat(), 0);
    assert!(
        common::stdout(&o).contains("cut by the loop bound (--unroll 2 per loop entry)"),
        "{}",
        common::stdout(&o)
    );
    let o = common::tsoser_exits(
        &[&args[..], &["--engine", "reach", "--unroll", "3"]].concat(),
        0,
    );
    assert!(common::stdout(&o).contains("x=6"), "{}", common::stdout(&o));
    let o = common::tsoser_exits(
        &[
            "explore",
            "examples/programs/sb.prog",
            "--loop-bound",
            "entry",
        ],
        2,
    );
    assert!(common::stderr(&o).contains("bounds the loops of a C file"));
}

/// `--stop-at-failure` ends a DPOR exploration with the execution in which an
/// assertion fails, as Nidhugg stops at its first error: fewer executions, the same
/// failure (it replays), the exploration marked as ended there; other engines refuse it.
#[test]
fn stop_at_failure_ends_dpor_at_the_first_failing_execution() {
    let p = read_c(&example("sb.c"), &[]);
    let c = Config::new(Model::Tso);
    let all = explore_dpor(&p, &c, false);
    let first = explore_dpor(&p, &c.stop_at_failure(true), false);
    assert!(all.exploration.failure.is_some() && first.exploration.failure.is_some());
    assert!(all.exploration.complete);
    assert_eq!(
        first.exploration.incomplete,
        Some(Incomplete::StoppedAtFailure)
    );
    assert!(
        first.stats.executions < all.stats.executions,
        "{} of {}",
        first.stats.executions,
        all.stats.executions
    );
    let sb = "examples/c/sb.c";
    let args = [
        "explore",
        sb,
        "--model",
        "tso",
        "--no-robustness",
        "--stop-at-failure",
    ];
    let o = common::tsoser_exits(&[&args[..], &["--engine", "dpor"]].concat(), 1);
    let out = common::stdout(&o);
    assert!(
        out.contains(&format!(
            "{} explored by DPOR",
            match first.stats.executions {
                1 => "1 execution".to_string(),
                n => format!("{n} executions"),
            }
        )) && out.contains("assertion FAILS")
            && out.contains("ended at the first failed assertion (--stop-at-failure)"),
        "{out}"
    );
    let o = common::tsoser_exits(&args, 2);
    assert!(common::stderr(&o).contains("add --engine dpor"));
}
