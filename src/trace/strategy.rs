//! Proptest strategies for well-formed random traces (feature `proptest`), shared by
//! every decider's tests.

use super::{Op, Trace, TraceBuilder};
use proptest::prelude::*;

/// Tunable shape of random traces.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub min_events: usize,
    pub max_events: usize,
    pub threads: usize,
    pub vars: usize,
    /// Maximum events per transaction.
    pub max_txn_len: usize,
    /// Relative weights of rd, wr, fence, rmw.
    pub weights: [u32; 4],
}

impl Default for Params {
    fn default() -> Params {
        Params {
            min_events: 4,
            max_events: 8,
            threads: 3,
            vars: 2,
            max_txn_len: 3,
            weights: [5, 5, 1, 1],
        }
    }
}

impl Params {
    /// Biased toward buffered reads: many writes then reads of few variables, few fences.
    pub fn buffered() -> Params {
        Params {
            weights: [6, 6, 1, 1],
            vars: 2,
            ..Params::default()
        }
    }
}

/// One raw event: thread, op, variable, and whether it starts a new transaction.
type Raw = (usize, usize, usize, bool);

fn op_from(weights: &[u32; 4], k: u32) -> Op {
    let mut k = k % weights.iter().sum::<u32>().max(1);
    for (i, &w) in weights.iter().enumerate() {
        if k < w {
            return [Op::Rd, Op::Wr, Op::Fence, Op::Rmw][i];
        }
        k -= w;
    }
    Op::Rd
}

/// Builds a trace from raw choices; transactions are cut at `new_txn` or at `max_txn_len`.
fn build(p: &Params, raw: &[Raw]) -> Trace {
    let mut b = TraceBuilder::new();
    let mut cur: Vec<Option<(usize, usize)>> = vec![None; p.threads]; // (txn number, length)
    let mut count = vec![0usize; p.threads];
    for &(t, k, v, new_txn) in raw {
        let op = op_from(&p.weights, k as u32);
        let start = match cur[t] {
            None => true,
            Some((_, len)) => new_txn || len >= p.max_txn_len,
        };
        if start {
            count[t] += 1;
            cur[t] = Some((count[t], 0));
        }
        let (no, len) = cur[t].unwrap();
        cur[t] = Some((no, len + 1));
        let var = format!("x{v}");
        b.push(
            &format!("t{t}"),
            Some(&format!("T{t}.{no}")),
            op,
            op.has_var().then_some(var.as_str()),
        );
    }
    b.build().expect("generated traces are well-formed")
}

/// Random well-formed traces of up to `p.max_events` events.
pub fn traces(p: Params) -> impl Strategy<Value = Trace> {
    let raw = (
        0..p.threads.max(1),
        0usize..1000,
        0..p.vars.max(1),
        proptest::bool::weighted(0.35),
    );
    proptest::collection::vec(
        raw,
        p.min_events.clamp(1, p.max_events.max(1))..=p.max_events.max(1),
    )
    .prop_map(move |raw| build(&p, &raw))
}
