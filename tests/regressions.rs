//! Regression tests named after what they pin. The paper's trace event graph (Def. 4)
//! reports violations that no execution has; each kind found is kept here, checked
//! against both brute force and the literal enumeration of executions. Then bugs of
//! tsoser itself, each named after what went wrong.

use crate::common;

use tsoser::check::fpt::{check_fpt, FptOptions};
use tsoser::check::sat::check_sat;
use tsoser::check::{brute, verify, Semantics, Verdict};
use tsoser::solver::SolverKind;
use tsoser::trace::{compact, Op};

/// Exact: serializable (brute and every execution); paper: a verified violation.
fn paper_false_alarm(lines: &[&str]) {
    let t = compact(lines);
    assert!(
        brute::check_exact(&t, u64::MAX, &tsoser::Stop::default())
            .0
            .is_serializable(),
        "exact brute"
    );
    assert!(
        common::literal_violation(&t).is_none(),
        "every execution serializable"
    );
    let (paper, _) = brute::check_paper(&t, 1 << 20, &tsoser::Stop::default());
    let Verdict::Violation(w) = paper else {
        panic!("the paper's graph reports a violation")
    };
    assert_eq!(verify(&t, &w), Ok(()));
}

/// docs/semantics.md §5, flaw 1: a buffered read is parallel with the other commit.
#[test]
fn flaw1_buffered_read_parallel_with_other_write() {
    paper_false_alarm(&["t1 A wr x", "t1 A rd x", "t2 B wr x"]);
}

/// Flaw 1 with an rmw as the other thread's write (rmw reaches memory at once).
#[test]
fn flaw1_with_rmw() {
    paper_false_alarm(&["t1 A wr x", "t1 A rd x", "t2 B rmw x"]);
}

/// docs/semantics.md §5, flaw 2: a commit is one point; it cannot precede `ra` and follow `rb`.
#[test]
fn flaw2_commit_is_one_point() {
    paper_false_alarm(&[
        "t0 T0 wr x",
        "t2 T2 rd x",
        "t2 T2 rd y",
        "t1 T1 wr y",
        "t1 T1 rd x",
    ]);
}

/// Flaw 2 through FIFO (found by random search): the orientation needs
/// c(#0) < c(#1) < #2 < #6 < c(#0): FIFO orders the two commits, the trace orders #2
/// before #6, but EG_τ has no edge for either non-conflicting order.
#[test]
fn flaw2_through_fifo_commits() {
    paper_false_alarm(&[
        "t0 T0 wr x0",
        "t0 T0 wr x1",
        "t1 T1 rd x1",
        "t0 T0 rd x1",
        "t2 T2 wr x2",
        "t1 T1b rd x2",
        "t2 T2 rd x0",
    ]);
}

/// Flaw 2 through FIFO with rmws (found by random search): c(#3) < c(#4) < #5 < #6 < c(#3).
#[test]
fn flaw2_through_fifo_with_rmw() {
    paper_false_alarm(&[
        "t2 T2 rd x0",
        "t1 T1 rmw x1",
        "t0 T0 rmw x1",
        "t2 T2 wr x0",
        "t2 T2 wr x2",
        "t1 T1 rd x2",
        "t0 T0 rd x0",
    ]);
}

/// The first proptest failure of the SC monitor: an rmw's read part was labelled
/// write-read while ⊙SC calls the pair write-write; the witness did not re-check.
#[test]
fn sc_rmw_after_write_is_write_write() {
    let t = compact(&[
        "a A wr x",
        "b B rmw x",
        "a A2 rd x",
        "b B rd y",
        "a A2 wr y",
    ]);
    if let Verdict::Violation(w) = tsoser::check::sc::check_sc(&t) {
        assert_eq!(verify(&t, &w), Ok(()));
    }
    let g = tsoser::check::sc::sc_graph(&t);
    let e = g
        .edges()
        .iter()
        .find(|e| {
            e.src == tsoser::trace::exec::Step::Event(0)
                && e.dst == tsoser::trace::exec::Step::Event(1)
        })
        .unwrap();
    assert_eq!(e.rule, tsoser::trace::conflict::Rule::ScWriteWrite);
}

/// Recursive Tarjan (petgraph's `tarjan_scc`) overflowed the 2 MiB stack of a worker
/// thread on a chain of 10⁵ transactions (found by the blocks family of the former `bench scale`).
/// Test threads have the same default stack.
#[test]
fn long_transaction_chains_do_not_overflow_the_stack() {
    let mut b = tsoser::trace::TraceBuilder::new();
    for i in 0..100_000 {
        let op = if i % 2 == 0 { Op::Wr } else { Op::Rd };
        b.push("t0", Some(&format!("T{i}")), op, Some("x"));
    }
    b.push("t1", Some("U"), Op::Rd, Some("y"));
    let t = b.build().unwrap();
    let (v, _) = check_sat(
        &t,
        Semantics::Exact,
        SolverKind::Varisat,
        &tsoser::Stop::default(),
    )
    .unwrap();
    assert!(v.is_serializable());
    let (v, _) = check_fpt(
        &t,
        Semantics::Exact,
        FptOptions::default(),
        &tsoser::Stop::default(),
    )
    .unwrap();
    assert!(v.is_serializable());
    assert!(tsoser::graph::forced::forced_graph(&t)
        .find_cycle()
        .is_none());
}

/// The verdict of `check --algo brute` on a YAML text.
fn yaml_verdict(src: &str) -> Verdict {
    let t = tsoser::trace::yaml::parse_trace(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    brute::check_exact(&t, u64::MAX, &tsoser::Stop::default()).0
}

/// Store buffering over `x`, written `x` in the mapping form and in the compact form.
fn store_buffering(x: &str) -> String {
    format!(
        "events:\n  - {{thread: t1, txn: a, op: wr, var: {x}}}\n  - \"t1 a rd y\"\n  - {{thread: t2, txn: b, op: wr, var: y}}\n  - \"t2 b rd {x}\"\n"
    )
}

/// `var: 0x10` was read as the number 16 ("16") while the compact form kept "0x10": two
/// variables, and store buffering was missed (exit 0 instead of 1). Likewise 2.50,
/// 1e3, 0o17, True, .NaN, null and ~.
#[test]
fn a_name_is_its_text_in_both_forms() {
    for x in [
        "0x10", "2.50", "1e3", "0o17", "True", ".NaN", "null", "~", "016", "+5", "-0",
    ] {
        let src = store_buffering(x);
        let t = tsoser::trace::yaml::parse_trace(&src).unwrap();
        assert_eq!(
            t.vars.iter().map(String::as_str).collect::<Vec<_>>(),
            [x, "y"],
            "{src}"
        );
        assert!(yaml_verdict(&src).is_violation(), "{src}");
    }
}

/// Past u128, numbers were read as floats: two distinct 42-digit addresses both read as
/// "1e41", a false cycle (exit 1 instead of 0); between 2⁶⁴ and 2¹²⁸ an exit-2 type error.
#[test]
fn big_numbers_are_names_not_floats() {
    let (a, b) = (
        "100000000000000000000000000000000000000001",
        "100000000000000000000000000000000000000002",
    );
    let src = format!(
        "events:\n  - {{thread: t1, txn: a, op: wr, var: {a}}}\n  - {{thread: t1, txn: a, op: rd, var: y}}\n  - {{thread: t2, txn: b, op: wr, var: y}}\n  - {{thread: t2, txn: b, op: rd, var: {b}}}\n"
    );
    let t = tsoser::trace::yaml::parse_trace(&src).unwrap();
    assert_eq!(t.vars.len(), 3);
    assert!(yaml_verdict(&src).is_serializable());
    let mid = "18446744073709551617"; // 2⁶⁴ + 1
    let t = tsoser::trace::yaml::parse_trace(&store_buffering(mid)).unwrap();
    assert_eq!(t.vars[tsoser::trace::VarId::new(0)], mid);
}

/// An event without `txn` got the made-up name `@0` and silently merged with the user's
/// transaction `@0` (exit 1 instead of 0); with the user's `@0` on another thread, the
/// same input was a spurious exit 2.
#[test]
fn a_made_up_transaction_name_never_merges_with_the_users() {
    let merged =
        "events:\n  - \"t1 wr x\"\n  - \"t1 @0 rd y\"\n  - \"t2 b wr y\"\n  - \"t2 b rd x\"\n";
    let t = tsoser::trace::yaml::parse_trace(merged).unwrap();
    assert_eq!(t.txns.len(), 3);
    assert!(yaml_verdict(merged).is_serializable());
    let other = "events:\n  - \"t1 wr x\"\n  - \"t2 @0 rd x\"\n";
    let t = tsoser::trace::yaml::parse_trace(other).unwrap();
    assert_eq!(t.txns.len(), 2);
    // `convert` keeps them apart: the anonymous one is written without a name.
    let text = tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Canonical);
    assert_eq!(
        text,
        "events:\n  - {thread: t1, op: wr, var: x}\n  - {thread: t2, txn: \"@0\", op: rd, var: x}\n"
    );
    let std = tsoser::trace::std_format::to_std(&t).unwrap();
    assert_eq!(std, "t1|w(x)|0\nt2|begin(@0)|1\nt2|r(x)|1\nt2|end|2\n");
}

/// STD's unnamed block of thread t was named `t.b1` and merged with the user's
/// `begin(t.b1)` block.
#[test]
fn an_unnamed_std_block_is_not_the_users_block_of_its_made_up_name() {
    let text = "t|begin|0\nt|w(x)|1\nt|end|2\nu|r(x)|3\nt|begin(t.b1)|4\nt|r(y)|5\nt|end|6\n";
    let t = tsoser::trace::std_format::build(text.as_bytes()).unwrap();
    assert_eq!(t.txns.len(), 3, "{:?}", t.txns);
    assert!(t.txns.iter().filter(|x| x.anonymous).count() == 2);
    // Written to YAML, an unnamed block of two events needs a name: one the user's
    // does not have.
    let text = "t|begin|0\nt|w(x)|1\nt|r(y)|2\nt|end|3\nt|begin(t.b1)|4\nt|r(z)|5\nt|end|6\n";
    let t = tsoser::trace::std_format::build(text.as_bytes()).unwrap();
    let names = t.written_txn_names();
    let names: Vec<Option<&str>> = names.iter().map(|n| n.as_deref()).collect();
    assert_eq!(names, [Some("t.b1'"), Some("t.b1")]);
    let yaml = tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Canonical);
    let back = tsoser::trace::yaml::parse_trace(&yaml).unwrap();
    assert_eq!(back.txns.len(), 2);
    assert_eq!(back.events[1].txn, back.events[0].txn);
}

/// Values compared as floats: two different 42-digit values were equal, and a read was
/// matched to a write of another value ("SC: yes").
#[test]
fn big_values_are_not_rounded_to_floats() {
    use tsoser::consistency::run::ValueRun;
    let src = "events:\n  - {thread: t1, op: wr, var: x, val: 100000000000000000000000000000000000000001}\n  - {thread: t2, op: rd, var: x, val: 100000000000000000000000000000000000000002}\n";
    let t = tsoser::trace::yaml::parse_trace(src).unwrap();
    let e = ValueRun::from_trace(&t).unwrap_err().to_string();
    assert!(e.contains("a value no write of it produces"), "{e}");
    // The same number written two ways is one value.
    let src = "events:\n  - \"t1 wr x 0100000000000000000000000000000000000000001\"\n  - {thread: t2, op: rd, var: x, val: 100000000000000000000000000000000000000001}\n";
    let run = ValueRun::from_trace(&tsoser::trace::yaml::parse_trace(src).unwrap()).unwrap();
    assert_eq!(run.events[1].rf, Some(0));
}

/// An rmw's value was split at the first `/`: `0/1/2` was old 0, new "1/2"; and an
/// empty value (`rmw x 0/`, `val: ""`) was accepted.
#[test]
fn an_rmw_value_has_one_slash_and_no_value_is_empty() {
    use tsoser::consistency::run::ValueRun;
    for (ev, want) in [
        ("\"t1 rmw x 0/1/2\"", "one `/`"),
        ("\"t1 rmw x 0/\"", "an empty value"),
        ("\"t1 rmw x /1\"", "an empty value"),
        ("{thread: t1, op: wr, var: x, val: \"\"}", "an empty value"),
        ("{thread: t1, op: rd, var: x, val: \" \"}", "an empty value"),
    ] {
        let src = format!("events:\n  - {ev}\n");
        let t = tsoser::trace::yaml::parse_trace(&src).unwrap();
        let e = ValueRun::from_trace(&t).unwrap_err().to_string();
        assert!(e.contains(want), "{ev}: {e}");
        assert!(e.starts_with("2: event #0"), "{e}");
    }
}

/// `"a wrr x"` was reported as "unknown op `x`".
#[test]
fn a_misspelt_op_is_named() {
    let e = tsoser::trace::yaml::parse_trace("events:\n  - \"a wrr x\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown op `wrr`") && e.contains("did you mean `wr`"),
        "{e}"
    );
    let e = tsoser::trace::yaml::parse_trace("events:\n  - \"a t1 fense\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown op `fense`"), "{e}");
}
