//! RAPID's STD format: reading, writing, `tsoser convert`, and `check` on `.std` files.

mod common;

use common::{config, stderr, stdout, tsoser};
use proptest::prelude::*;
use tsoser::check::{brute, Semantics};
use tsoser::trace::std_format::{build, to_std, StdReader};
use tsoser::trace::strategy::{traces, Params};

proptest! {
    #![proptest_config(config(2000))]

    /// Writing a trace as STD and reading it back keeps every event (a fence goes out as
    /// `acq(fence:T)` and comes back a fence), the transactions, and the verdict in both
    /// semantics.
    #[test]
    fn std_round_trip_keeps_events_transactions_and_verdicts(trace in traces(Params { min_events: 3, max_events: 9, ..Params::default() })) {
        let back = build(StdReader::new(to_std(&trace).as_bytes())).unwrap();
        prop_assert_eq!(back.len(), trace.len());
        for (a, b) in trace.events.iter().zip(&back.events) {
            prop_assert_eq!(&trace.threads[a.thread], &back.threads[b.thread]);
            prop_assert_eq!(a.op, b.op);
            if let Some(v) = a.var {
                prop_assert_eq!(&trace.vars[v], &back.vars[b.var.unwrap()]);
            }
        }
        for i in 0..trace.len() {
            for j in 0..trace.len() {
                let same = trace.events[i].txn == trace.events[j].txn;
                prop_assert_eq!(same, back.events[i].txn == back.events[j].txn);
            }
        }
        for sem in [Semantics::Exact, Semantics::Paper] {
            let (x, y) = match sem {
                Semantics::Exact => (brute::check_exact(&trace, u64::MAX).0, brute::check_exact(&back, u64::MAX).0),
                Semantics::Paper => (brute::check_paper(&trace, 1 << 22).0, brute::check_paper(&back, 1 << 22).0),
            };
            prop_assert_eq!(x.name(), y.name(), "{:?}", sem);
        }
    }
}

#[test]
fn convert_goes_both_ways_and_check_reads_std() {
    let dir = std::env::temp_dir().join(format!("tsoser-std-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let std_file = dir.join("pool.std");
    let o = tsoser(&[
        "convert",
        "examples/task-pool.yaml",
        "-o",
        std_file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&std_file).unwrap();
    assert!(text.starts_with("a|begin|"), "{text}");
    assert!(text.contains("a|r(head)|"), "{text}");
    let o = tsoser(&["check", std_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "the task pool stays a violation");
    let o = tsoser(&["convert", std_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let back = tsoser::trace::parse::parse_trace(&stdout(&o)).unwrap();
    assert_eq!(back.len(), 12);
    assert_eq!(back.txns.len(), 4);
    let o = tsoser(&["convert", "examples/task-pool.yaml", "--to", "yaml"]);
    assert!(stdout(&o).contains("\"a alpha rd head\""), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_std_lines_exit_2_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("tsoser-stdbad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (body, line, words) in [
        ("T0|r(x)|1\nT0|load(x)|2\n", 2, "unknown operation `load`"),
        ("T0|r(x)|1\n\nT0|w()|3\n", 3, "needs a variable"),
        ("T0|end|1\n", 1, "without a `begin`"),
    ] {
        let f = dir.join("bad.std");
        std::fs::write(&f, body).unwrap();
        for cmd in ["check", "convert"] {
            let o = tsoser(&[cmd, f.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "{body}");
            let err = stderr(&o);
            assert!(err.contains(&format!("bad.std:{line}:")), "{err}");
            assert!(err.contains(words), "{err}");
            assert!(stdout(&o).is_empty());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

proptest! {
    #![proptest_config(config(1500))]

    /// Every monitor streamed over an STD file (two passes, no trace in memory) finds
    /// what it finds on the trace in memory, and sc-ser what `first_violation` does.
    #[test]
    fn streaming_monitors_agree_with_the_in_memory_ones(trace in traces(Params { min_events: 3, max_events: 12, threads: 3, vars: 2, max_txn_len: 4, weights: [5, 5, 1, 2] })) {
        use tsoser::monitor::{run, sc_ser::first_violation, stream, Kind, Outcome};
        let dir = std::env::temp_dir().join(format!("tsoser-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.std");
        std::fs::write(&f, to_std(&trace)).unwrap();
        let back = tsoser::trace::std_format::read_std(&f).unwrap();
        let s = stream(&f, &Kind::ALL).unwrap();
        prop_assert_eq!(&s.outcomes, &run(&back, &Kind::ALL));
        let sc = match s.outcomes[0].1 { Outcome::ScSer(i) => Some(i), _ => None };
        prop_assert_eq!(sc, first_violation(&back));
        prop_assert_eq!(first_violation(&back), first_violation(&trace));
        let quiet = stream(&f, &[Kind::ScSer]).unwrap();
        if quiet.outcomes[0].1 == Outcome::Clean {
            prop_assert_eq!(quiet.events, trace.len());
        }
    }
}
