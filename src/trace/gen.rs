//! Seeded trace generators: random small traces for tests, and large "realistic"
//! traces for the scale benchmarks (docs/performance.md).

use super::{Op, Trace, TraceBuilder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Shape of a generated trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    pub events: usize,
    pub threads: usize,
    pub vars: usize,
    /// Mean events per transaction.
    pub txn_len: usize,
    /// Mean events between fences of a thread (0: no fences).
    pub fence_every: usize,
    /// Probability of an rmw among memory accesses.
    pub rmw: f64,
    /// Probability of a write among memory accesses (the rest are reads).
    pub write: f64,
    /// Run each transaction to its end before scheduling another thread (transactions
    /// never interleave in the trace, though store buffers still delay their writes).
    pub serial: bool,
    /// End every transaction with a fence (transaction-fenced, Enea & Farzan §6.3):
    /// every transaction has an access before its fence, no other fences are drawn
    /// (`fence_every` is ignored), and the transactions the event count cuts are closed
    /// by a fence (up to one event per thread more).
    pub txn_fenced: bool,
    /// No read after a write in a transaction (read-modify-write transactions): with
    /// `serial` and `txn_fenced`, no store can be reordered past a later load, so the
    /// trace is robust and the SC monitors read it to its end.
    pub reads_first: bool,
}

impl Shape {
    /// The scale shape of the issue: 8 threads, 1,000 variables, transactions of ~8
    /// events, a fence every ~50 events per thread.
    pub fn realistic(events: usize) -> Shape {
        Shape {
            events,
            threads: 8,
            vars: 1000,
            txn_len: 8,
            fence_every: 50,
            rmw: 0.01,
            write: 0.4,
            serial: false,
            txn_fenced: false,
            reads_first: false,
        }
    }
}

impl Shape {
    /// The dense shape (the experiments' `dense` family): random schedule, no fences, no rmw, single-event
    /// transactions, half of the accesses writes.
    pub fn dense(events: usize, threads: usize, vars: usize) -> Shape {
        Shape {
            events,
            threads,
            vars,
            txn_len: 1,
            fence_every: 0,
            rmw: 0.0,
            write: 0.5,
            serial: false,
            txn_fenced: false,
            reads_first: false,
        }
    }
}

/// Generates a well-formed trace of the given shape; the same seed gives the same trace.
/// Threads are scheduled at random; each thread runs transactions back to back.
pub fn generate(shape: &Shape, seed: u64) -> Trace {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = TraceBuilder::new().name(format!(
        "gen-n{}-k{}-v{}-s{seed}",
        shape.events, shape.threads, shape.vars
    ));
    let threads: Vec<String> = (0..shape.threads).map(|t| format!("t{t}")).collect();
    let vars: Vec<String> = (0..shape.vars.max(1)).map(|v| format!("x{v}")).collect();
    let mut left_in_txn = vec![0usize; shape.threads];
    let mut txn_no = vec![0usize; shape.threads];
    let mut txn_name = vec![String::new(); shape.threads];
    let mut wrote = vec![false; shape.threads];
    let mut running: Option<usize> = None;
    for _ in 0..shape.events {
        let t = match running {
            Some(t) if shape.serial && left_in_txn[t] > 0 => t,
            _ => rng.random_range(0..shape.threads.max(1)),
        };
        running = Some(t);
        if left_in_txn[t] == 0 {
            txn_no[t] += 1;
            txn_name[t] = format!("{}.{}", threads[t], txn_no[t]);
            left_in_txn[t] = 1 + rng.random_range(0..(2 * shape.txn_len.max(1) - 1));
            if shape.txn_fenced {
                // An access before the closing fence: no transaction of a fence alone.
                left_in_txn[t] = left_in_txn[t].max(2);
            }
            wrote[t] = false;
        }
        left_in_txn[t] -= 1;
        let ends_txn = shape.txn_fenced && left_in_txn[t] == 0;
        // With txn_fenced every transaction ends with its own fence: no random fences
        // (a transaction of fences alone would carry no access).
        let random_fence = !shape.txn_fenced
            && shape.fence_every > 0
            && rng.random_range(0..shape.fence_every) == 0;
        let op = if ends_txn || random_fence {
            Op::Fence
        } else {
            let p: f64 = rng.random();
            if p < shape.rmw {
                Op::Rmw
            } else if p < shape.rmw + shape.write || (shape.reads_first && wrote[t]) {
                Op::Wr
            } else {
                Op::Rd
            }
        };
        wrote[t] |= matches!(op, Op::Wr | Op::Rmw);
        let var = op
            .has_var()
            .then(|| vars[rng.random_range(0..vars.len())].as_str());
        b.push(&threads[t], Some(&txn_name[t]), op, var);
    }
    if shape.txn_fenced {
        // Close the transactions the event count cut, so the trace is transaction-fenced
        // (bug: gen_txn_fenced_is_transaction_fenced); at most one fence per thread more.
        for (t, left) in left_in_txn.iter().enumerate() {
            if *left > 0 {
                b.push(&threads[t], Some(&txn_name[t]), Op::Fence, None);
            }
        }
    }
    b.build().expect("generated traces are well-formed")
}

/// `blocks` independent blocks of the given shape, one after another, each closed by a
/// fence in every thread (phases separated by barriers): the components of the
/// possible graph are the blocks, so a hard block shape (few variables, no fences,
/// single-event transactions) gives long traces whose every block needs a search.
pub fn blocks(shape: &Shape, blocks: usize, seed: u64) -> Trace {
    let mut b = TraceBuilder::new().name(format!(
        "blocks-{blocks}x{}-k{}-v{}-s{seed}",
        shape.events, shape.threads, shape.vars
    ));
    for k in 0..blocks {
        let block = generate(shape, seed.wrapping_mul(1_000_003).wrapping_add(k as u64));
        for e in &block.events {
            let txn = format!("b{k}.{}", block.txns[e.txn].name);
            let var = e.var.map(|v| block.vars[v].as_str());
            b.push(&block.threads[e.thread], Some(&txn), e.op, var);
        }
        for t in 0..shape.threads {
            let name = format!("t{t}");
            b.push(&name, Some(&format!("b{k}.{name}.fence")), Op::Fence, None);
        }
    }
    b.build().expect("generated traces are well-formed")
}

/// `trace` with the first two transactions of each of its first `threads` threads (in
/// order of first event) merged into one. On dense traces of single-event transactions
/// — serializable by docs/semantics.md §5.6 — one merged pair is the smallest change
/// that lets a cycle exist, and often leaves a hard, serializable instance
/// (docs/performance.md, "The hard regime").
pub fn pair_first(trace: &Trace, threads: usize) -> Trace {
    let mut order: Vec<super::ThreadId> = Vec::new();
    for e in &trace.events {
        if !order.contains(&e.thread) {
            order.push(e.thread);
        }
    }
    let chosen = &order[..threads.min(order.len())];
    // Per chosen thread: its first transaction, and the second, renamed to the first.
    let mut first: std::collections::HashMap<super::ThreadId, super::TxnId> = Default::default();
    let mut second: std::collections::HashMap<super::ThreadId, super::TxnId> = Default::default();
    for e in &trace.events {
        if !chosen.contains(&e.thread) {
            continue;
        }
        match first.get(&e.thread) {
            None => {
                first.insert(e.thread, e.txn);
            }
            Some(&f) if f != e.txn && !second.contains_key(&e.thread) => {
                second.insert(e.thread, e.txn);
            }
            _ => {}
        }
    }
    let mut b = TraceBuilder::new();
    b.set_name(trace.name.as_ref().map(|n| format!("{n}-p{threads}")));
    for (i, e) in trace.events.iter().enumerate() {
        let txn = match second.get(&e.thread) {
            Some(&s) if s == e.txn => first[&e.thread],
            _ => e.txn,
        };
        b.push_at(
            &trace.threads[e.thread],
            Some(&trace.txns[txn].name),
            e.op,
            e.var.map(|v| trace.vars[v].as_str()),
            trace.val(i).as_deref(),
            e.line as usize,
        );
    }
    b.build()
        .expect("merging a thread's consecutive transactions keeps the trace well-formed")
}
