//! The "yes" witnesses re-checked by running them, apart from the graphs that found
//! them: a serial order (SC, Qadeer §4: each read returns the latest write before it)
//! and a commit order (x86-TSO: reads in the order they execute, each write where it
//! leaves its thread's FIFO buffer; a read takes its thread's latest buffered write
//! of its location if there is one, else memory).

use super::run::{Kind, ValueRun};
use super::Rejected;

/// Checks that `order` lists every event once and each thread's events in program order
/// (`writes_apart`: a thread's writes in order among themselves, its other events
/// among themselves).
fn permutation(run: &ValueRun, order: &[usize], writes_apart: bool) -> Result<(), Rejected> {
    let n = run.events.len();
    if order.len() != n {
        return Err(Rejected::WrongLength {
            order: order.len(),
            run: n,
        });
    }
    let mut seen = vec![false; n];
    // Per thread: the last event placed (per class when writes are apart).
    let mut last: Vec<[Option<usize>; 2]> = vec![[None; 2]; run.threads.len()];
    for &e in order {
        if e >= n || std::mem::replace(&mut seen[e], true) {
            return Err(Rejected::MissingOrTwice { event: e });
        }
        let ev = &run.events[e];
        let class = usize::from(writes_apart && ev.kind == Kind::Write);
        if let Some(p) = last[ev.thread][class] {
            if p > e {
                return Err(Rejected::OutOfProgramOrder { event: e, later: p });
            }
        }
        last[ev.thread][class] = Some(e);
    }
    Ok(())
}

fn mismatch(run: &ValueRun, e: usize, got: &str) -> Rejected {
    Rejected::WrongValue {
        event: run.show(e),
        read: run.read_value(e).unwrap_or("?").to_string(),
        there: got.to_string(),
    }
}

/// Re-checks a serial order: program order kept, every read returns the latest write.
pub fn serial(run: &ValueRun, order: &[usize]) -> Result<(), Rejected> {
    permutation(run, order, false)?;
    let mut mem: Vec<&str> = vec![run.init.as_str(); run.locs.len()];
    for &e in order {
        let ev = &run.events[e];
        let Some(x) = ev.loc else { continue };
        if let Some(v) = run.read_value(e) {
            if v != mem[x] {
                return Err(mismatch(run, e, mem[x]));
            }
        }
        if ev.kind.writes() {
            mem[x] = &ev.val;
        }
    }
    Ok(())
}

/// Re-checks a commit order under x86-TSO: each thread's writes in program order, its
/// other events too; a write leaves the buffer after the events before it in its thread;
/// fences and rmws find the buffer empty; reads return the buffered or memory value.
pub fn commit_order(run: &ValueRun, order: &[usize]) -> Result<(), Rejected> {
    permutation(run, order, true)?;
    let n = run.events.len();
    let mut pos = vec![0usize; n];
    for (p, &e) in order.iter().enumerate() {
        pos[e] = p;
    }
    // Per event, in its thread: the latest earlier write, the latest earlier write of
    // its location, the latest earlier other event. A thread's writes commit in order,
    // so the first is committed iff all are, and the second is the buffered value iff
    // it is not committed.
    let none = usize::MAX;
    let mut prev_write = vec![none; n];
    let mut prev_write_loc = vec![none; n];
    let mut prev_other = vec![none; n];
    let mut last: Vec<(usize, usize)> = vec![(none, none); run.threads.len()];
    let mut last_loc: rustc_hash::FxHashMap<(usize, usize), usize> = Default::default();
    for (i, ev) in run.events.iter().enumerate() {
        let t = ev.thread;
        (prev_write[i], prev_other[i]) = last[t];
        if let Some(x) = ev.loc {
            prev_write_loc[i] = last_loc.get(&(t, x)).copied().unwrap_or(none);
        }
        if ev.kind == Kind::Write {
            last[t].0 = i;
            last_loc.insert((t, ev.loc.unwrap()), i);
        } else {
            last[t].1 = i;
        }
    }
    let committed = |w: usize, p: usize| w == none || pos[w] < p;
    let mut mem: Vec<&str> = vec![run.init.as_str(); run.locs.len()];
    for (p, &e) in order.iter().enumerate() {
        let ev = &run.events[e];
        if ev.kind == Kind::Write {
            // Issued only after the thread executed everything before it.
            let b = prev_other[e];
            if b != none && pos[b] > p {
                return Err(Rejected::CommitsEarly {
                    write: run.show(e),
                    earlier: run.show(b),
                });
            }
            mem[ev.loc.unwrap()] = &ev.val;
            continue;
        }
        if ev.kind != Kind::Read && !committed(prev_write[e], p) {
            return Err(Rejected::BufferNotDrained {
                event: run.show(e),
                write: run.show(prev_write[e]),
            });
        }
        let Some(x) = ev.loc else { continue };
        let w = prev_write_loc[e];
        let seen = if committed(w, p) {
            mem[x]
        } else {
            run.events[w].val.as_str()
        };
        if run.read_value(e) != Some(seen) {
            return Err(mismatch(run, e, seen));
        }
        if ev.kind == Kind::Rmw {
            mem[x] = &ev.val;
        }
    }
    Ok(())
}
