//! Property tests: every fast path against the literal definition, on thousands of
//! generated traces with fixed seeds. Failing cases are kept in `proptest-regressions/`.

use crate::common;

use common::*;
use proptest::prelude::*;
use tsoser::check::execution::{contraction_graph, tso_graph, tso_graph_naive, tso_po_conflict};
use tsoser::check::{brute, sc, verify, Verdict};
use tsoser::graph::exact::ExactGraph;
use tsoser::graph::forced::forced_graph;
use tsoser::graph::ConflictGraph;
use tsoser::trace::conflict::sc_conflict;
use tsoser::trace::exec::{Execution, Step};
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::Trace;

fn small() -> Params {
    Params {
        min_events: 5,
        max_events: 9,
        ..Params::default()
    }
}

fn exact(trace: &Trace) -> Verdict {
    brute::check_exact(trace, u64::MAX, &tsoser::Stop::default()).0
}

proptest! {
    #![proptest_config(config(4000))]

    /// brute (sleep sets, forced edges, bound, early exit) == every execution, all pairs.
    #[test]
    fn brute_agrees_with_the_definition(trace in traces(small())) {
        let literal = literal_violation(&trace).is_some();
        let v = exact(&trace);
        prop_assert_eq!(v.is_violation(), literal, "brute {} vs literal {}", v.name(), literal);
        if let Verdict::Violation(w) = &v {
            prop_assert_eq!(verify(&trace, w), Ok(()));
        }
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// Buffered reads, few variables: where the parallel exception lives.
    #[test]
    fn brute_agrees_with_the_definition_buffered(trace in traces(Params { min_events: 6, max_events: 9, threads: 2, ..Params::buffered() })) {
        prop_assert_eq!(exact(&trace).is_violation(), literal_violation(&trace).is_some());
    }

    /// The sparse execution graph has the reachability of the all-pairs one.
    #[test]
    fn execution_graph_matches_all_pairs(trace in traces(small())) {
        for exec in executions(&trace).into_iter().take(40) {
            prop_assert_eq!(closure(&tso_graph(&trace, &exec)), closure(&tso_graph_naive(&trace, &exec)));
        }
    }

    /// Forced edges: present in every execution, and as reachable as all such pairs.
    #[test]
    fn forced_edges_are_exactly_forced(trace in traces(Params { min_events: 4, max_events: 7, ..Params::default() })) {
        let sparse = forced_graph(&trace);
        let execs = executions(&trace);
        for e in sparse.edges() {
            for x in &execs {
                prop_assert!(x.pos(e.src) < x.pos(e.dst), "forced edge out of order");
                prop_assert!(tsoser::trace::conflict::conflict(&trace, x, e.src, e.dst).is_some(), "forced edge not a conflict");
            }
        }
        prop_assert_eq!(closure(&sparse), closure(&forced_pairs(&trace)));
    }

    /// Forced edges on longer traces, where each thread touches a variable many times:
    /// as reachable as the same-thread graph with every cross-thread pair whose conflict
    /// is unconditional (a fixed order, never parallel).
    #[test]
    fn forced_edges_reach_like_every_unconditional_conflict(trace in traces(Params { min_events: 10, max_events: 32, threads: 3, vars: 2, max_txn_len: 3, weights: [6, 6, 1, 1] })) {
        prop_assert_eq!(closure(&forced_graph(&trace)), closure(&unconditional_conflicts(&trace)));
    }

    /// docs/semantics.md §5: the exact event graph's acyclic orientations decide like the executions.
    #[test]
    fn exact_graph_orientations_agree(trace in traces(Params { min_events: 4, max_events: 7, ..Params::default() })) {
        let g = ExactGraph::new(&trace);
        let mut violation = false;
        let complete = g.for_each_orientation(&trace, 1 << 16, |x| {
            violation = tso_graph_naive(&trace, x).is_cyclic();
            !violation
        });
        prop_assume!(complete);
        prop_assert_eq!(violation, exact(&trace).is_violation());
    }

    /// The paper's graph (Thm. 5 by orientations) never misses a violation; when it
    /// disagrees, it reports one that no execution has.
    #[test]
    fn paper_graph_over_approximates(trace in traces(small())) {
        let (paper, _) = brute::check_paper(&trace, 1 << 20, &tsoser::Stop::default());
        prop_assume!(!matches!(paper, Verdict::Unknown(_)));
        let ex = exact(&trace);
        if ex.is_violation() {
            prop_assert!(paper.is_violation(), "the paper's graph missed a violation");
        }
        if let Verdict::Violation(w) = &paper {
            prop_assert_eq!(verify(&trace, w), Ok(()));
        }
    }

    /// Proposition 2: a non-serializable execution's trace is not serializable.
    #[test]
    fn proposition_2(trace in traces(small())) {
        let bad = executions(&trace).into_iter().any(|x| tso_graph_naive(&trace, &x).is_cyclic());
        if bad {
            prop_assert!(exact(&trace).is_violation());
        }
    }

    /// The O(n) SC-serializability graph has the reachability of all ⊙SC pairs.
    #[test]
    fn sc_graph_matches_all_pairs(trace in traces(Params { max_events: 12, threads: 4, vars: 3, ..Params::default() })) {
        let mut naive = ConflictGraph::new(trace.txns.len());
        for a in 0..trace.len() {
            for b in a + 1..trace.len() {
                if let Some(r) = sc_conflict(&trace, a, b) {
                    naive.add(trace.events[a].txn, trace.events[b].txn, Step::Event(a), Step::Event(b), r);
                }
            }
        }
        prop_assert_eq!(closure(&sc::sc_graph(&trace)), closure(&naive));
        if let Verdict::Violation(w) = sc::check_sc(&trace) {
            prop_assert_eq!(verify(&trace, &w), Ok(()));
        }
    }

    /// The write-contraction graph has the reachability of all ⊙TSO-po pairs.
    #[test]
    fn contraction_matches_all_pairs(trace in traces(small())) {
        for exec in executions(&trace).into_iter().take(20) {
            let unit = |n: Step| match n { Step::Event(e) | Step::Commit(e) => e };
            let mut naive = ConflictGraph::new(trace.len());
            let steps: Vec<_> = exec.steps().collect();
            for (i, &a) in steps.iter().enumerate() {
                for &b in &steps[i + 1..] {
                    if let Some(r) = tso_po_conflict(&trace, &exec, a, b) {
                        naive.add(unit(a), unit(b), a, b, r);
                    }
                }
            }
            prop_assert_eq!(closure(&contraction_graph(&trace, &exec)), closure(&naive));
        }
    }

    /// An SC run (commits right after their writes) of a trace is SC-equivalent.
    #[test]
    fn sc_runs_are_sc_equivalent(trace in traces(small())) {
        prop_assert!(contraction_graph(&trace, &Execution::sc(&trace)).find_cycle().is_none());
    }

    /// The sparse Def. 4 graph: same undirected edges and same reachability of the
    /// directed ones as the all-pairs definition.
    #[test]
    fn paper_graph_matches_all_pairs(trace in traces(Params { min_events: 4, max_events: 14, threads: 4, vars: 3, ..Params::default() })) {
        let g = tsoser::graph::paper::PaperGraph::new(&trace);
        let (naive_dir, naive_und) = paper_graph_naive(&trace);
        prop_assert_eq!(&g.undirected, &naive_und);
        let mut sparse = ConflictGraph::new(trace.len());
        for &(a, b) in &g.directed {
            prop_assert!(naive_dir.edges().iter().any(|e| (e.from, e.to) == (a, b)), "({}, {}) is a Def. 4 edge", a, b);
            sparse.add(a, b, Step::Event(a), Step::Event(b), tsoser::trace::conflict::Rule::PaperDirected);
        }
        prop_assert_eq!(closure(&sparse), closure(&naive_dir));
    }

    /// The YAML writers and the parser round-trip.
    #[test]
    fn yaml_round_trips(trace in traces(Params { max_events: 20, threads: 4, vars: 5, ..Params::default() })) {
        for text in [tsoser::trace::yaml::write(&trace, tsoser::trace::yaml::Form::Canonical), tsoser::trace::yaml::write(&trace, tsoser::trace::yaml::Form::Compact)] {
            let back = tsoser::trace::yaml::parse_trace(&text).unwrap();
            prop_assert_eq!(back.len(), trace.len());
            for i in 0..trace.len() {
                prop_assert_eq!(back.describe(i), trace.describe(i));
            }
        }
        let exec = Execution::complete(&trace, &[]);
        let (t2, x2) = tsoser::trace::yaml::parse_execution(&tsoser::trace::yaml::write_execution(&trace, &exec)).unwrap();
        prop_assert_eq!(t2.len(), trace.len());
        prop_assert_eq!(x2.steps().collect::<Vec<_>>(), exec.steps().collect::<Vec<_>>());
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// The sweep of `varying_pairs` finds exactly the pairs of the definition: other
    /// threads, one variable, not two reads, spans meeting; each pair once.
    #[test]
    fn varying_pairs_are_all_pairs_whose_spans_meet(trace in traces(Params { min_events: 4, max_events: 14, threads: 3, vars: 2, weights: [5, 5, 1, 1], ..Params::default() })) {
        use tsoser::trace::conflict::{access, thread, Access};
        use tsoser::analysis::{span, varying_pairs};
        use tsoser::trace::Op;
        let nodes: Vec<(Step, tsoser::trace::VarId)> = trace.events.iter().enumerate().filter_map(|(i, e)| match e.op {
            Op::Wr => Some((Step::Commit(i), e.var.unwrap())),
            Op::Rd | Op::Rmw => Some((Step::Event(i), e.var.unwrap())),
            Op::Fence => None,
        }).collect();
        let mut want = Vec::new();
        for (i, &(a, xa)) in nodes.iter().enumerate() {
            for &(b, xb) in &nodes[i + 1..] {
                let ((la, ha), (lb, hb)) = (span(&trace, a), span(&trace, b));
                let reads = access(&trace, a).0 == Access::Read && access(&trace, b).0 == Access::Read;
                if xa == xb && thread(&trace, a) != thread(&trace, b) && !reads && la <= hb && lb <= ha {
                    want.push(if (la, ha) <= (lb, hb) { (a, b) } else { (b, a) });
                }
            }
        }
        let got = varying_pairs(&trace);
        let norm = |v: &[(Step, Step)]| {
            let mut v: Vec<(Step, Step)> = v.iter().map(|&(a, b)| if format!("{a:?}") <= format!("{b:?}") { (a, b) } else { (b, a) }).collect();
            v.sort_by_key(|p| format!("{p:?}"));
            v
        };
        prop_assert_eq!(norm(&got), norm(&want));
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// The vector-clock SC-serializability monitor stops exactly at the first event
    /// whose prefix has a cycle in the ⊙SC conflict graph, and its witness re-checks.
    #[test]
    fn sc_ser_monitor_stops_at_the_first_non_serializable_prefix(trace in traces(Params { min_events: 3, max_events: 14, threads: 4, vars: 2, max_txn_len: 4, weights: [5, 5, 1, 2] }), seed in any::<u64>()) {
        use tsoser::check::sc::sc_graph_upto;
        use tsoser::monitor::{check_sc_ser, sc_ser::first_violation};
        let want = (1..=trace.len()).find(|&n| sc_graph_upto(&trace, n).is_cyclic()).map(|n| n - 1);
        prop_assert_eq!(first_violation(&trace), want);
        // Transactions ended by hints after the events a bit of `seed` picks
        // (`ScSer::end`, also before a transaction's last event, which then goes on):
        // the same first violation.
        let ends = |i: usize| seed.rotate_left(i as u32 % 64) & 1 == 1;
        prop_assert_eq!(tsoser::monitor::sc_ser::first_violation_ending(&trace, ends), want);
        // The same trace among 80 threads (the monitor's path for more than 64 threads).
        let mut wide = trace.clone();
        wide.threads = (0..80).map(|t| format!("w{t}")).collect();
        wide.events.iter_mut().for_each(|e| e.thread = tsoser::trace::ThreadId::new(e.thread.index() * 20 + 3));
        prop_assert_eq!(first_violation(&wide), want);
        prop_assert_eq!(tsoser::monitor::sc_ser::first_violation_ending(&wide, ends), want);
        let (v, _) = check_sc_ser(&trace);
        prop_assert_eq!(v.name(), sc::check_sc(&trace).name());
        if let Verdict::Violation(w) = &v {
            prop_assert_eq!(verify(&trace, w), Ok(()));
        }
    }
}

proptest! {
    #![proptest_config(config(500))]

    /// Bug gen_txn_fenced_is_transaction_fenced: `gen --txn-fenced` cut the last
    /// transaction (the output was not transaction-fenced) and made transactions that
    /// held only a fence. The fenced monitor's check now passes on every output.
    #[test]
    fn gen_txn_fenced_is_transaction_fenced(
        events in 0usize..300, threads in 1usize..6, txn_len in 1usize..6,
        serial in any::<bool>(), seed in any::<u64>(),
    ) {
        let shape = tsoser::trace::gen::Shape {
            txn_len, serial, txn_fenced: true,
            ..tsoser::trace::gen::Shape::realistic(events)
        };
        let shape = tsoser::trace::gen::Shape { threads, vars: 5, ..shape };
        let t = tsoser::trace::gen::generate(&shape, seed);
        prop_assert!(t.is_transaction_fenced());
        let out = tsoser::monitor::run(&t, &[tsoser::monitor::Kind::Fenced]);
        let fenced = matches!(out[0].1, tsoser::monitor::Outcome::Fenced { unfenced: None, .. });
        prop_assert!(fenced);
        let mut size = t.per_txn(0usize);
        let mut fences = t.per_txn(0usize);
        for e in &t.events {
            size[e.txn] += 1;
            fences[e.txn] += (e.op == tsoser::trace::Op::Fence) as usize;
        }
        prop_assert!(size.iter().zip(&fences).all(|(s, f)| s > f), "a transaction of fences alone");
        prop_assert!(t.len() <= events + threads);
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// docs/semantics.md §5.6, on the literal definition: in every execution, the
    /// conflict graph (all pairs of Eq. 1) restricted to transactions of one event is
    /// acyclic — every cycle goes through a transaction of two events or more. With
    /// fences, rmw, buffered reads, and transactions of one to three events.
    #[test]
    fn every_cycle_goes_through_a_transaction_of_two_events(trace in traces(Params { min_events: 4, max_events: 8, max_txn_len: 2, weights: [5, 5, 1, 1], ..Params::default() })) {
        let multi = tsoser::analysis::multi_event(&trace);
        tsoser::trace::exec::for_each_execution(&trace, |steps| {
            let exec = Execution::new(&trace, steps.to_vec()).unwrap();
            let g = tso_graph_naive(&trace, &exec);
            let mut single = ConflictGraph::new(trace.txns.len());
            for e in g.edges().iter().filter(|e| !multi[e.from] && !multi[e.to]) {
                single.add(e.from, e.to, e.src, e.dst, e.rule);
            }
            assert!(single.find_cycle().is_none(), "a cycle of one-event transactions in {:?}", exec.steps().collect::<Vec<_>>());
            true
        });
    }

    /// The same, for the verdict: a trace whose transactions are single events is
    /// TSO-serializable (brute force, the oracle).
    #[test]
    fn traces_of_single_event_transactions_are_serializable(trace in traces(Params { min_events: 4, max_events: 10, max_txn_len: 1, weights: [5, 5, 1, 1], ..Params::default() })) {
        prop_assert!(matches!(exact(&trace), Verdict::Serializable));
    }
}

/// Names that YAML would read as something else, or that need quoting.
fn tricky_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0x10".to_string()),
        Just("16".to_string()),
        Just("016".to_string()),
        Just("2.50".to_string()),
        Just("2.5".to_string()),
        Just("1e3".to_string()),
        Just("0o17".to_string()),
        Just("True".to_string()),
        Just("true".to_string()),
        Just("null".to_string()),
        Just("~".to_string()),
        Just(".NaN".to_string()),
        Just("-.inf".to_string()),
        Just("@0".to_string()),
        Just("@1".to_string()),
        Just("t0.b1".to_string()),
        Just("rd".to_string()),
        Just("fence".to_string()),
        Just("100000000000000000000000000000000000000001".to_string()),
        Just("100000000000000000000000000000000000000002".to_string()),
        "[a-z@.0-9]{1,4}",
        "[ -~]{1,6}",
        "\\PC{1,3}",
    ]
}

/// `trace` with its names replaced from `pool` (one-to-one) and, where `anon` says so,
/// single-event transactions left without a name.
fn renamed(trace: &Trace, pool: &[String], anon: &[bool]) -> Trace {
    use std::collections::HashMap;
    let mut used: std::collections::HashSet<String> = Default::default();
    let mut fresh = |k: usize| {
        let mut n = pool[k % pool.len()].clone();
        if n.trim().is_empty() || n.starts_with('#') {
            n = format!("n{k}");
        }
        while !used.insert(n.clone()) {
            n.push('_');
        }
        n
    };
    let threads: Vec<String> = (0..trace.threads.len()).map(&mut fresh).collect();
    let vars: Vec<String> = (0..trace.vars.len()).map(|k| fresh(k + 7)).collect();
    let mut size: HashMap<usize, usize> = HashMap::new();
    for e in &trace.events {
        *size.entry(e.txn.index()).or_default() += 1;
    }
    let txns: Vec<Option<String>> = (0..trace.txns.len())
        .map(|k| (size[&k] > 1 || !anon[k % anon.len()]).then(|| fresh(k + 13)))
        .collect();
    let mut b = tsoser::trace::TraceBuilder::new();
    for e in &trace.events {
        b.push(
            &threads[e.thread.index()],
            txns[e.txn.index()].as_deref(),
            e.op,
            e.var.map(|v| vars[v.index()].as_str()),
        );
    }
    b.build().unwrap()
}

/// The same trace, every event written at random as a compact string (where its words
/// allow) or as a mapping.
fn mixed_yaml(trace: &Trace, pick: &[bool]) -> String {
    let canonical = tsoser::trace::yaml::write(trace, tsoser::trace::yaml::Form::Canonical);
    let compact = tsoser::trace::yaml::write(trace, tsoser::trace::yaml::Form::Compact);
    let mut out = String::from("events:\n");
    let (a, b): (Vec<&str>, Vec<&str>) = (
        canonical.lines().skip(1).collect(),
        compact.lines().skip(1).collect(),
    );
    for i in 0..a.len() {
        out.push_str(if pick[i % pick.len()] { a[i] } else { b[i] });
        out.push('\n');
    }
    out
}

fn same_trace(a: &Trace, b: &Trace) -> Result<(), TestCaseError> {
    prop_assert_eq!(&a.threads, &b.threads);
    prop_assert_eq!(&a.vars, &b.vars);
    prop_assert_eq!(&a.txns, &b.txns);
    prop_assert_eq!(a.len(), b.len());
    for (x, y) in a.events.iter().zip(&b.events) {
        prop_assert_eq!(
            (x.thread, x.txn, x.op, x.var),
            (y.thread, y.txn, y.op, y.var)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(2000))]

    /// Bug a_name_is_its_text_in_both_forms: `var: 0x10` read as 16 while the compact
    /// form kept `0x10`. Now the canonical, compact and mixed forms of a trace with
    /// names that look like numbers, booleans, nulls or made-up names read back as the
    /// same trace, and `convert` writes them bit for bit alike.
    #[test]
    fn canonical_and_compact_forms_are_one_trace(
        trace in traces(Params { max_events: 12, threads: 3, vars: 4, ..Params::default() }),
        pool in proptest::collection::vec(tricky_name(), 8..20),
        anon in proptest::collection::vec(any::<bool>(), 1..8),
        pick in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        use tsoser::trace::yaml::parse_trace;
        let to_yaml = |t: &Trace| tsoser::trace::yaml::write(t, tsoser::trace::yaml::Form::Canonical);
        let t = renamed(&trace, &pool, &anon);
        let canonical = to_yaml(&t);
        for text in [canonical.clone(), tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Compact), mixed_yaml(&t, &pick)] {
            let back = parse_trace(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            same_trace(&t, &back)?;
            prop_assert_eq!(to_yaml(&back), canonical.clone());
        }
        // Through STD and back, when STD can carry the names.
        if let Ok(std) = tsoser::trace::std_format::to_std(&t) {
            let back = tsoser::trace::std_format::build(std.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{std}")))?;
            same_trace(&t, &back)?;
        }
    }
}

/// The same-thread graph with every cross-thread pair that conflicts, in this
/// direction, in every execution ([`requirement`] with no condition), all pairs.
fn unconditional_conflicts(trace: &Trace) -> ConflictGraph {
    use tsoser::analysis::requirement;
    use tsoser::trace::conflict::{thread, txn};
    let mut g = tsoser::graph::forced::same_thread_graph(trace);
    let mut nodes: Vec<Step> = (0..trace.len()).map(Step::Event).collect();
    nodes.extend(trace.writes().map(Step::Commit));
    for &a in &nodes {
        for &b in &nodes {
            let same_var = |n: Step| match n {
                Step::Event(e) | Step::Commit(e) => trace.events[e].var,
            };
            if thread(trace, a) == thread(trace, b)
                || same_var(a).is_none()
                || same_var(a) != same_var(b)
            {
                continue;
            }
            if let Some(r) = requirement(trace, a, b) {
                if r.order.is_none() && r.not_parallel.is_empty() {
                    g.add(txn(trace, a).index(), txn(trace, b).index(), a, b, r.rule);
                }
            }
        }
    }
    g
}

proptest! {
    #![proptest_config(config(3000))]

    /// Bug none yet (session 21: the builder keeps names `X.N` out of its table while
    /// each X's numbers grow): transaction names interned in any order, numbered or
    /// not, reused or not, give the transactions of a plain table of names.
    #[test]
    fn transaction_names_are_interned_like_a_table(
        names in proptest::collection::vec((0..3usize, 0..12usize), 1..40)
    ) {
        const NAMES: [&str; 12] =
            ["t0.1", "t0.2", "t0.3", "t1.1", "t1.2", "t0.10", "t0.01", "x", "t0", "a.b.0", "a.b.1", "t1.0"];
        let mut b = tsoser::trace::TraceBuilder::new();
        let mut table: Vec<&str> = Vec::new();
        for &(t, k) in &names {
            let th = b.thread(&format!("t{t}"));
            let got = b.txn(NAMES[k], th).index();
            let want = table.iter().position(|&n| n == NAMES[k]).unwrap_or_else(|| {
                table.push(NAMES[k]);
                table.len() - 1
            });
            prop_assert_eq!(got, want, "{:?}", names);
        }
    }
}
