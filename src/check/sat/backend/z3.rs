//! z3: SMT, each order atom a comparison of integer positions (difference logic).

use super::{Answer, Backend};
use crate::check::sat::encode::{Atom, Formula, Lit};
use crate::stop::Stop;
use crate::trace::{ThreadId, Trace};
use std::collections::HashMap;
use z3::ast::{Bool, Int};
use z3::{Params, SatResult, Solver};

/// z3: the clauses over Booleans, each order atom a comparison of integer positions.
/// Event p sits at `m·(p+1)`; a commit strictly between its window's events, with
/// room for every commit in one gap (m = commits + 1). Written against the oldest
/// API z3 4.8 has (no `Z3_mk_real_int64`, no decl-kind tables).
pub struct Z3 {
    solver: Solver,
    vars: Vec<Bool>,
    model: Vec<bool>,
    /// Polled during each call by a watcher thread that interrupts z3 (its deadline is
    /// also z3's own timeout).
    stop: Stop,
}

impl Z3 {
    /// An empty solver over the Boolean variables `1..=vars`.
    pub fn with_vars(vars: usize, stop: &Stop) -> Z3 {
        let timeout_ms = stop.left().map(|d| d.as_millis() as u64 + 1);
        let solver = Solver::new();
        if let Some(ms) = timeout_ms {
            let mut p = Params::new();
            p.set_u32("timeout", ms.min(u32::MAX as u64) as u32);
            solver.set_params(&p);
        }
        Z3 {
            solver,
            vars: (1..=vars)
                .map(|v| Bool::new_const(format!("v{v}")))
                .collect(),
            model: Vec::new(),
            stop: stop.clone(),
        }
    }

    /// The formula, each order atom a comparison of positions in `trace`.
    pub fn new(f: &Formula, trace: &Trace, stop: &Stop) -> Z3 {
        let Z3 {
            solver, mut vars, ..
        } = Z3::with_vars(f.num_vars(), stop);
        let m = trace.writes().count() as i64 + 1;
        let at = |p: usize| Int::from_i64(m * (p as i64 + 1));
        let mut pos: HashMap<usize, Int> = HashMap::new();
        let commit = |w: usize, pos: &mut HashMap<usize, Int>| -> Int {
            pos.entry(w)
                .or_insert_with(|| Int::new_const(format!("c{w}")))
                .clone()
        };
        let mut atoms: Vec<(&Atom, &Lit)> = f.atoms.iter().collect();
        atoms.sort_by_key(|(_, &l)| l);
        for (a, &l) in atoms {
            let e = match *a {
                Atom::CommitBeforeEvent(w, p) => commit(w, &mut pos).lt(at(p)),
                Atom::CommitBeforeCommit(w1, w2) => commit(w1, &mut pos).lt(commit(w2, &mut pos)),
            };
            vars[l as usize - 1] = e;
        }
        // Windows and FIFO for the commits that appear.
        let mut ws: Vec<usize> = pos.keys().copied().collect();
        ws.sort_unstable();
        let mut last: HashMap<ThreadId, usize> = HashMap::new();
        for &w in &ws {
            let c = pos[&w].clone();
            solver.assert(c.gt(at(w)));
            solver.assert(c.lt(at(trace.commit_bound(w))));
            if let Some(prev) = last.insert(trace.events[w].thread, w) {
                solver.assert(pos[&prev].lt(&c));
            }
        }
        let lit = |vars: &Vec<Bool>, l: Lit| {
            let b = &vars[l.unsigned_abs() as usize - 1];
            if l > 0 {
                b.clone()
            } else {
                b.not()
            }
        };
        for c in &f.clauses {
            let ls: Vec<Bool> = c.iter().map(|&l| lit(&vars, l)).collect();
            let refs: Vec<&Bool> = ls.iter().collect();
            solver.assert(Bool::or(&refs));
        }
        Z3 {
            solver,
            vars,
            model: Vec::new(),
            stop: stop.clone(),
        }
    }

    /// The assertions in SMT-LIB 2.
    pub fn to_smt2(&self) -> String {
        self.solver.to_smt2()
    }
}

impl Backend for Z3 {
    fn add_clause(&mut self, clause: &[Lit]) {
        let ls: Vec<Bool> = clause
            .iter()
            .map(|&l| {
                let b = &self.vars[l.unsigned_abs() as usize - 1];
                if l > 0 {
                    b.clone()
                } else {
                    b.not()
                }
            })
            .collect();
        let refs: Vec<&Bool> = ls.iter().collect();
        self.solver.assert(Bool::or(&refs));
    }

    fn solve(&mut self) -> Answer {
        let result = if self.stop.cancel.is_empty() {
            self.solver.check()
        } else {
            // A cancellation (a portfolio's other side, or the caller) interrupts z3
            // from a watcher thread, polled every 5 ms while the call runs.
            let done = std::sync::atomic::AtomicBool::new(false);
            let handle = self.solver.get_context().handle();
            let stop = &self.stop;
            std::thread::scope(|s| {
                s.spawn(|| {
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        if stop.expired() {
                            handle.interrupt();
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                });
                let r = self.solver.check();
                done.store(true, std::sync::atomic::Ordering::Relaxed);
                r
            })
        };
        match result {
            SatResult::Sat => {
                let m = self.solver.get_model().expect("a model after sat");
                self.model = std::iter::once(false)
                    .chain(
                        self.vars
                            .iter()
                            .map(|b| m.eval(b, true).and_then(|v| v.as_bool()).unwrap_or(false)),
                    )
                    .collect();
                Answer::Sat
            }
            SatResult::Unsat => Answer::Unsat,
            SatResult::Unknown => Answer::Unknown,
        }
    }

    fn value(&self, var: Lit) -> bool {
        self.model.get(var as usize).copied().unwrap_or(false)
    }

    fn name(&self) -> &'static str {
        "z3"
    }

    /// z3's own count, of all calls on this solver.
    fn conflicts(&self) -> Option<u64> {
        match self.solver.get_statistics().value("conflicts") {
            Some(z3::StatisticsValue::UInt(n)) => Some(n.into()),
            Some(z3::StatisticsValue::Double(x)) => Some(x as u64),
            // Not searched yet (or decided by preprocessing): none.
            None => Some(0),
        }
    }
}
