//! The one-transaction test (`check::relax`, docs/hardness.md) against brute, the
//! oracle: it never calls a violating trace serializable, and it proves most
//! serializable ones.

use crate::common::*;
use proptest::prelude::*;
use tsoser::check::relax::{prove_trace, Relax};
use tsoser::check::{brute, verify, Verdict};
use tsoser::trace::gen::{generate, pair_first, Shape};
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::{Trace, TraceBuilder};
use tsoser::Stop;

fn exact(trace: &Trace) -> Verdict {
    brute::check_exact(trace, u64::MAX, &Stop::default()).0
}

/// relax's answer by name; a violation's witness must re-check.
fn relax(trace: &Trace) -> &'static str {
    match prove_trace(trace, &Stop::default()) {
        Relax::Serializable => "serializable",
        Relax::Violation(w) => {
            verify(trace, &w).expect("relax's witness re-checks");
            "violation"
        }
        Relax::Maybe => "maybe",
        Relax::Skipped => "skipped",
    }
}

/// `trace` with, for each `(pick, at, len)`, `len` consecutive events of one of its
/// threads from the `at`-th on made one transaction (a run meeting an earlier one is
/// left out); every other transaction has one event.
fn merged(trace: &Trace, runs: &[(usize, usize, usize)]) -> Trace {
    let mut txn: Vec<Option<usize>> = vec![None; trace.len()];
    for (k, &(pick, at, len)) in runs.iter().enumerate() {
        let th = trace.events[pick % trace.len()].thread;
        let own: Vec<usize> = (0..trace.len())
            .filter(|&e| trace.events[e].thread == th)
            .collect();
        let start = at % own.len();
        let chosen = &own[start..(start + len).min(own.len())];
        if chosen.iter().all(|&e| txn[e].is_none()) {
            chosen.iter().for_each(|&e| txn[e] = Some(k));
        }
    }
    let mut b = TraceBuilder::new();
    for (i, e) in trace.events.iter().enumerate() {
        let name = match txn[i] {
            Some(k) => format!("T{k}"),
            None => format!("s{i}"),
        };
        b.push(
            &trace.threads[e.thread],
            Some(&name),
            e.op,
            e.var.map(|v| trace.vars[v].as_str()),
        );
    }
    b.build()
        .expect("merged runs of one thread are well-formed")
}

/// Traces of single events but `merges` transactions of 2–3 events.
fn merged_traces(p: Params, merges: usize) -> impl Strategy<Value = Trace> {
    let run = (any::<usize>(), any::<usize>(), 2usize..=3);
    (traces(p), proptest::collection::vec(run, merges)).prop_map(|(t, runs)| merged(&t, &runs))
}

fn one_transaction(p: Params) -> impl Strategy<Value = Trace> {
    merged_traces(p, 1)
}

proptest! {
    #![proptest_config(config(3000))]

    /// Soundness (Theorem 2 of docs/hardness.md): fences, rmw, buffered reads, T anywhere.
    #[test]
    fn relax_never_proves_a_violating_trace(trace in one_transaction(Params { min_events: 5, max_events: 12, threads: 4, vars: 2, max_txn_len: 1, weights: [5, 5, 1, 1] })) {
        let r = relax(&trace);
        if r != "maybe" && r != "skipped" {
            prop_assert_eq!(exact(&trace).is_violation(), r == "violation", "relax proved a violating trace:\n{}", tsoser::trace::yaml::write(&trace, tsoser::trace::yaml::Form::Compact));
        }
    }

    /// Soundness with two or three transactions of several events: the segments.
    #[test]
    fn relax_never_proves_a_violating_trace_of_several_transactions(trace in merged_traces(Params { min_events: 5, max_events: 11, threads: 3, vars: 2, max_txn_len: 1, weights: [5, 5, 1, 1] }, 3)) {
        let r = relax(&trace);
        if r != "maybe" && r != "skipped" {
            prop_assert_eq!(exact(&trace).is_violation(), r == "violation", "relax proved a violating trace:\n{}", tsoser::trace::yaml::write(&trace, tsoser::trace::yaml::Form::Compact));
        }
    }
}

/// On the dense family with one merged pair (`gen --pairs 1`), it proves every
/// serializable trace brute finds, and never a violating one.
#[test]
fn relax_proves_the_serializable_dense_pairs_1_traces() {
    let (mut proved, mut serializable, mut violations) = (0, 0, 0);
    for events in [8, 10, 12] {
        for threads in 2..=5 {
            for seed in 0..25 {
                let t = pair_first(&generate(&Shape::dense(events, threads, 2), seed), 1);
                let r = relax(&t);
                if r == "skipped" {
                    // The first thread has one event: nothing was merged.
                    assert!(t.txns.len() == t.len());
                    continue;
                }
                if exact(&t).is_violation() {
                    violations += 1;
                    assert_ne!(
                        r, "serializable",
                        "{events} events, k = {threads}, seed {seed}"
                    );
                } else {
                    serializable += 1;
                    proved += usize::from(r == "serializable");
                }
            }
        }
    }
    assert!(
        serializable > 50 && violations > 50,
        "{serializable} / {violations}"
    );
    assert_eq!(proved, serializable, "proved {proved} of {serializable}");
}

/// On general one-transaction traces (fences, rmw, T anywhere in its thread), it proves
/// nearly every serializable trace: the test cannot pass by answering *maybe* always.
#[test]
fn relax_proves_most_serializable_one_transaction_traces() {
    use proptest::strategy::ValueTree;
    let p = Params {
        min_events: 5,
        max_events: 9,
        threads: 3,
        vars: 2,
        max_txn_len: 1,
        weights: [5, 5, 1, 1],
    };
    let strategy = one_transaction(p);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut proved, mut serializable) = (0, 0);
    for _ in 0..2000 {
        let t = strategy.new_tree(&mut runner).expect("a trace").current();
        let r = relax(&t);
        if !exact(&t).is_violation() && t.txns.len() < t.len() {
            serializable += 1;
            proved += usize::from(r == "serializable");
        }
    }
    eprintln!("relax proved {proved} of {serializable} serializable traces");
    assert!(serializable > 500, "{serializable}");
    assert!(
        proved * 10 >= serializable * 9,
        "proved {proved} of {serializable}"
    );
}

/// With two transactions of several events, on the dense family's `--pairs 2` shape:
/// every answer sound, and most serializable traces proved.
#[test]
fn relax_on_dense_pairs_2_traces() {
    let (mut proved, mut serializable, mut violations) = (0, 0, 0);
    for events in [8, 10, 12] {
        for threads in 2..=5 {
            for seed in 0..25 {
                let t = pair_first(&generate(&Shape::dense(events, threads, 2), seed), 2);
                let r = relax(&t);
                if exact(&t).is_violation() {
                    violations += 1;
                    assert_ne!(
                        r, "serializable",
                        "{events} events, k = {threads}, seed {seed}"
                    );
                } else if r != "skipped" {
                    serializable += 1;
                    proved += usize::from(r == "serializable");
                }
            }
        }
    }
    eprintln!(
        "pairs 2: relax proved {proved} of {serializable} serializable; {violations} violations"
    );
    assert!(
        serializable > 50 && violations > 50,
        "{serializable} / {violations}"
    );
    // 58 of 67 when written.
    assert!(
        proved * 10 >= serializable * 8,
        "proved {proved} of {serializable}"
    );
}
