//! Runs with values made by running random programs on the machines (SC, or TSO with
//! FIFO store buffers and commits at random times): consistent by construction, for
//! tests and benchmarks. The file order lists each write where it reached memory (so
//! the simple write order is the memory's) and every other event as early as program
//! order allows after that.

use super::run::{Kind, RunEvent, ValueRun, INIT};
use super::Model;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The shape of a random run.
#[derive(Clone, Debug)]
pub struct Params {
    pub threads: usize,
    pub locs: usize,
    /// Events per thread.
    pub per_thread: usize,
    /// Percentages of writes, rmws and fences (the rest are reads).
    pub writes: u32,
    pub rmws: u32,
    pub fences: u32,
    pub model: Model,
}

impl Params {
    /// `threads` × `per_thread` events over `locs` locations: 40 % writes, 8 % rmws,
    /// 7 % fences, the rest reads (the tests' and benches' mix).
    pub fn new(model: Model, threads: usize, locs: usize, per_thread: usize) -> Params {
        Params {
            threads,
            locs,
            per_thread,
            writes: 40,
            rmws: 8,
            fences: 7,
            model,
        }
    }
}

/// A run of a random program of `p`'s shape on `p.model`'s machine.
pub fn run(p: &Params, seed: u64) -> ValueRun {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let program: Vec<Vec<(Kind, usize)>> = (0..p.threads)
        .map(|_| {
            (0..p.per_thread)
                .map(|_| {
                    let d = rng.random_range(0..100);
                    let kind = if d < p.writes {
                        Kind::Write
                    } else if d < p.writes + p.rmws {
                        Kind::Rmw
                    } else if d < p.writes + p.rmws + p.fences {
                        Kind::Fence
                    } else {
                        Kind::Read
                    };
                    (kind, rng.random_range(0..p.locs.max(1)))
                })
                .collect()
        })
        .collect();
    // Events by thread in program order, with the time each is placed at.
    let mut events: Vec<Vec<(RunEvent, u64)>> = vec![Vec::new(); p.threads];
    let mut pc = vec![0; p.threads];
    let mut buf: Vec<VecDeque<usize>> = vec![VecDeque::new(); p.threads];
    // Per location: (thread, index) of the write memory holds.
    let mut mem: Vec<Option<(usize, usize)>> = vec![None; p.locs];
    let mut next_val = vec![0u64; p.locs];
    let mut time = 0u64;
    let tso = p.model == Model::Tso;
    let value = |events: &Vec<Vec<(RunEvent, u64)>>, w: Option<(usize, usize)>| {
        w.map_or(INIT.to_string(), |(t, i)| events[t][i].0.val.clone())
    };
    loop {
        // Enabled: a thread's next event, or its oldest buffered write's commit.
        let mut choices = Vec::new();
        for t in 0..p.threads {
            if let Some(&(k, _)) = program[t].get(pc[t]) {
                if !matches!(k, Kind::Fence | Kind::Rmw) || buf[t].is_empty() {
                    choices.push((t, false));
                }
            }
            if !buf[t].is_empty() {
                choices.push((t, true));
            }
        }
        if choices.is_empty() {
            break;
        }
        let (t, commit) = choices[rng.random_range(0..choices.len())];
        time += 1;
        if commit {
            let i = buf[t].pop_front().expect("a buffered write");
            events[t][i].1 = time;
            mem[events[t][i].0.loc.unwrap()] = Some((t, i));
            continue;
        }
        let (kind, x) = program[t][pc[t]];
        pc[t] += 1;
        let i = events[t].len();
        let mut ev = RunEvent {
            thread: t,
            kind,
            loc: (kind != Kind::Fence).then_some(x),
            rf: None,
            val: String::new(),
            old: None,
            line: 0,
        };
        match kind {
            Kind::Fence => {}
            Kind::Read => {
                let own = buf[t]
                    .iter()
                    .rev()
                    .find(|&&w| events[t][w].0.loc == Some(x))
                    .map(|&w| (t, w));
                let from = own.or(mem[x]);
                ev.val = value(&events, from);
                ev.rf = from.map(|(u, w)| u * p.per_thread + w);
            }
            Kind::Write | Kind::Rmw => {
                if kind == Kind::Rmw {
                    ev.old = Some(value(&events, mem[x]));
                    ev.rf = mem[x].map(|(u, w)| u * p.per_thread + w);
                }
                next_val[x] += 1;
                ev.val = next_val[x].to_string();
            }
        }
        events[t].push((ev, time));
        if kind == Kind::Write && tso {
            buf[t].push_back(i);
        } else if kind.writes() {
            mem[x] = Some((t, i));
        }
    }
    // File order: each event at the latest time of itself and its thread's earlier events.
    let mut keyed: Vec<(u64, usize, usize)> = Vec::new();
    for (t, evs) in events.iter().enumerate() {
        let mut key = 0;
        for (i, (_, at)) in evs.iter().enumerate() {
            key = key.max(*at);
            keyed.push((key, t, i));
        }
    }
    keyed.sort_unstable();
    let mut index = vec![0usize; p.threads * p.per_thread];
    for (k, &(_, t, i)) in keyed.iter().enumerate() {
        index[t * p.per_thread + i] = k;
    }
    let mut out = Vec::with_capacity(keyed.len());
    let mut writes = vec![Vec::new(); p.locs];
    for (k, &(_, t, i)) in keyed.iter().enumerate() {
        let mut ev = events[t][i].0.clone();
        ev.rf = ev.rf.map(|g| index[g]);
        if ev.kind.writes() {
            writes[ev.loc.unwrap()].push(k);
        }
        out.push(ev);
    }
    ValueRun {
        name: None,
        threads: (0..p.threads).map(|t| format!("p{t}")).collect(),
        locs: (0..p.locs).map(|x| format!("x{x}")).collect(),
        init: INIT.to_string(),
        events: out,
        writes,
    }
}

/// The run listed in another interleaving, chosen at random from `seed` (each
/// thread's events keep their order): the simple write order changes, whether some
/// write order makes the run consistent does not.
pub fn relist(run: &ValueRun, seed: u64) -> ValueRun {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut by_thread: Vec<VecDeque<usize>> = vec![VecDeque::new(); run.threads.len()];
    for (i, ev) in run.events.iter().enumerate() {
        by_thread[ev.thread].push_back(i);
    }
    let mut order = Vec::with_capacity(run.events.len());
    let mut live: Vec<usize> = (0..by_thread.len())
        .filter(|&t| !by_thread[t].is_empty())
        .collect();
    while !live.is_empty() {
        let k = rng.random_range(0..live.len());
        let t = live[k];
        order.extend(by_thread[t].pop_front());
        if by_thread[t].is_empty() {
            live.swap_remove(k);
        }
    }
    let mut new_id = vec![0; order.len()];
    for (k, &i) in order.iter().enumerate() {
        new_id[i] = k;
    }
    let mut out = run.clone();
    out.events = order
        .iter()
        .map(|&i| {
            let mut ev = run.events[i].clone();
            ev.rf = ev.rf.map(|w| new_id[w]);
            ev.line = 0;
            ev
        })
        .collect();
    for ws in &mut out.writes {
        ws.clear();
    }
    for (k, ev) in out.events.iter().enumerate() {
        if let (true, Some(x)) = (ev.kind.writes(), ev.loc) {
            out.writes[x].push(k);
        }
    }
    out
}
