//! The oracle: search every interleaving of the run's events on the machine itself
//! (SC: one memory; TSO: per-thread FIFO store buffers, commits at any time) for one
//! in which every read returns the value it recorded. Exponential: for small runs
//! and tests.

use super::run::{Kind, ValueRun};
use super::Model;
use rustc_hash::FxHashSet as HashSet;

/// Budget of distinct machine states.
pub const MAX_STATES: usize = 2_000_000;

/// Some(order) — a serial order (SC) or commit order (TSO) — if the run is consistent
/// with the model, None if not, Err if the budget ran out. With `co`, writes reach
/// memory only in that order per location (e.g. [`ValueRun::writes`], the simple one).
pub fn search(
    run: &ValueRun,
    model: Model,
    co: Option<&[Vec<usize>]>,
) -> Result<Option<Vec<usize>>, usize> {
    let k = run.threads.len();
    let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, ev) in run.events.iter().enumerate() {
        by_thread[ev.thread].push(i);
    }
    let mut co_rank = vec![0; run.events.len()];
    if let Some(co) = co {
        for ws in co {
            for (k, &w) in ws.iter().enumerate() {
                co_rank[w] = k + 1;
            }
        }
    }
    let mut s = Search {
        run,
        model,
        by_thread,
        co: co.is_some().then_some(co_rank),
        seen: HashSet::default(),
    };
    let start = State {
        pc: vec![0; k],
        committed: vec![0; k],
        mem: vec![None; run.locs.len()],
    };
    let mut order = Vec::new();
    match s.dfs(start, &mut order) {
        Ok(true) => Ok(Some(order)),
        Ok(false) => Ok(None),
        Err(()) => Err(s.seen.len()),
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    /// Per thread: events executed (writes issued).
    pc: Vec<usize>,
    /// Per thread: writes committed (TSO).
    committed: Vec<usize>,
    /// Per location: the write whose value memory holds.
    mem: Vec<Option<usize>>,
}

struct Search<'a> {
    run: &'a ValueRun,
    model: Model,
    by_thread: Vec<Vec<usize>>,
    /// Per write: its 1-based place in the fixed write order, if there is one.
    co: Option<Vec<usize>>,
    seen: HashSet<State>,
}

impl Search<'_> {
    /// Whether write w may reach memory now: next in the fixed order, if any.
    fn in_turn(&self, s: &State, w: usize) -> bool {
        let Some(rank) = &self.co else {
            return true;
        };
        let x = self.run.events[w].loc.unwrap();
        rank[w] == s.mem[x].map_or(0, |m| rank[m]) + 1
    }

    /// The thread's issued writes not yet committed, oldest first.
    fn buffer(&self, s: &State, t: usize) -> Vec<usize> {
        if self.model == Model::Sc {
            return Vec::new();
        }
        let issued = &self.by_thread[t][..s.pc[t]];
        issued
            .iter()
            .copied()
            .filter(|&w| self.run.events[w].kind == Kind::Write)
            .skip(s.committed[t])
            .collect()
    }

    fn dfs(&mut self, s: State, order: &mut Vec<usize>) -> Result<bool, ()> {
        let done = (0..s.pc.len()).all(|t| s.pc[t] == self.by_thread[t].len())
            && (0..s.pc.len()).all(|t| self.buffer(&s, t).is_empty());
        if done {
            return Ok(true);
        }
        if !self.seen.insert(s.clone()) {
            return Ok(false);
        }
        if self.seen.len() > MAX_STATES {
            return Err(());
        }
        let run = self.run;
        for t in 0..s.pc.len() {
            let buf = self.buffer(&s, t);
            // Commit the oldest buffered write.
            if let Some(&w) = buf.first().filter(|&&w| self.in_turn(&s, w)) {
                let mut n = s.clone();
                n.committed[t] += 1;
                n.mem[run.events[w].loc.unwrap()] = Some(w);
                order.push(w);
                if self.dfs(n, order)? {
                    return Ok(true);
                }
                order.pop();
            }
            let Some(&e) = self.by_thread[t].get(s.pc[t]) else {
                continue;
            };
            let ev = &run.events[e];
            let mut n = s.clone();
            n.pc[t] += 1;
            match ev.kind {
                Kind::Fence if !buf.is_empty() => continue,
                Kind::Fence => {}
                Kind::Write if self.model == Model::Tso => {
                    // Issued into the buffer: placed at its commit.
                    if self.dfs(n, order)? {
                        return Ok(true);
                    }
                    continue;
                }
                Kind::Write if !self.in_turn(&s, e) => continue,
                Kind::Write => n.mem[ev.loc.unwrap()] = Some(e),
                Kind::Rmw if !buf.is_empty() || !self.in_turn(&s, e) => continue,
                Kind::Read | Kind::Rmw => {
                    let x = ev.loc.unwrap();
                    let from = buf
                        .iter()
                        .rev()
                        .find(|&&w| run.events[w].loc == Some(x))
                        .copied()
                        .or(s.mem[x]);
                    if from != ev.rf {
                        continue;
                    }
                    if ev.kind == Kind::Rmw {
                        n.mem[x] = Some(e);
                    }
                }
            }
            order.push(e);
            if self.dfs(n, order)? {
                return Ok(true);
            }
            order.pop();
        }
        Ok(false)
    }
}
