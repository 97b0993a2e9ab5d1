//! Regression tests named after what they pin. The paper's trace event graph (Def. 4)
//! reports violations that no execution has; each kind found is kept here, checked
//! against both brute force and the literal enumeration of executions. Then bugs of
//! tsoser itself, each named after what went wrong.

mod common;

use tsoser::check::fpt::{check_fpt, FptOptions};
use tsoser::check::sat::{check_sat, SolverKind};
use tsoser::check::{brute, verify, Semantics, Verdict};
use tsoser::trace::{compact, Op};

/// Exact: serializable (brute and every execution); paper: a verified violation.
fn paper_false_alarm(lines: &[&str]) {
    let t = compact(lines);
    assert!(
        brute::check_exact(&t, u64::MAX).0.is_serializable(),
        "exact brute"
    );
    assert!(
        common::literal_violation(&t).is_none(),
        "every execution serializable"
    );
    let (paper, _) = brute::check_paper(&t, 1 << 20);
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
    let (v, _) = check_sat(&t, Semantics::Exact, SolverKind::Varisat, None).unwrap();
    assert!(v.is_serializable());
    let (v, _) = check_fpt(&t, Semantics::Exact, FptOptions::default()).unwrap();
    assert!(v.is_serializable());
    assert!(tsoser::graph::forced::forced_graph(&t)
        .find_cycle()
        .is_none());
}
