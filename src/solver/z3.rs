//! z3: SMT, each order atom a comparison of integer positions (difference logic).

use super::{Answer, Lit, Positions, Problem, Solver, Term};
use crate::stop::Stop;
use z3::ast::{Bool, Int};
use z3::{Params, SatResult, Solver as Z3Solver};

/// z3: the clauses over Booleans, each order atom of the problem's [`Positions`] a
/// comparison of integer positions. Written against the oldest API z3 4.8 has (no
/// `Z3_mk_real_int64`, no decl-kind tables).
pub struct Z3 {
    solver: Z3Solver,
    vars: Vec<Bool>,
    model: Vec<bool>,
    /// Polled during each call by a watcher thread that interrupts z3 (its deadline is
    /// also z3's own timeout).
    stop: Stop,
}

impl Z3 {
    /// The problem: its positions, then its clauses (the order clauses only without
    /// positions).
    pub fn new(p: &Problem<'_>, stop: &Stop) -> Z3 {
        let timeout_ms = stop.left().map(|d| d.as_millis() as u64 + 1);
        // Every atom is `x < y` or a bound `x > k`, `x < k`: integer difference logic.
        // z3's solver for that logic skips the general solver's setup (5 ms a call on
        // a small problem, against 0.6 ms) and decides the hard traces faster too
        // (docs/performance.md, "The z3 backend").
        let solver = Z3Solver::new_for_logic("QF_IDL").expect("z3 knows QF_IDL");
        if let Some(ms) = timeout_ms {
            let mut params = Params::new();
            params.set_u32("timeout", ms.min(u32::MAX as u64) as u32);
            solver.set_params(&params);
        }
        let mut z = Z3 {
            solver,
            vars: (1..=p.vars)
                .map(|v| Bool::new_const(format!("v{v}")))
                .collect(),
            model: Vec::new(),
            stop: stop.clone(),
        };
        if let Some(pos) = &p.positions {
            z.assert_positions(pos);
        }
        let order = if p.positions.is_some() {
            &[][..]
        } else {
            p.order_clauses
        };
        for c in p.clauses.iter().chain(order) {
            z.add_clause(c);
        }
        z
    }

    /// Each atom's variable becomes its comparison (each free point an integer named
    /// when an atom first names it); then each point's window and predecessor.
    fn assert_positions(&mut self, pos: &Positions) {
        let mut ints: Vec<Option<Int>> = vec![None; pos.points.len()];
        let term = |t: Term, ints: &mut Vec<Option<Int>>| -> Int {
            match t {
                Term::At(x) => Int::from_i64(x),
                Term::Point(i) => ints[i]
                    .get_or_insert_with(|| Int::new_const(pos.points[i].name.as_str()))
                    .clone(),
            }
        };
        for &(l, x, y) in &pos.atoms {
            let x = term(x, &mut ints);
            self.vars[l as usize - 1] = x.lt(term(y, &mut ints));
        }
        for (i, p) in pos.points.iter().enumerate() {
            let c = term(Term::Point(i), &mut ints);
            self.solver.assert(c.gt(Int::from_i64(p.after)));
            self.solver.assert(c.lt(Int::from_i64(p.before)));
            if let Some(prev) = p.follows {
                self.solver
                    .assert(term(Term::Point(prev), &mut ints).lt(&c));
            }
        }
    }
}

impl Solver for Z3 {
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
            // from a watcher thread, polled every 5 ms while the call runs, and again
            // until it returns: an interrupt before z3 starts its search is lost. The
            // watcher waits on a channel that the call's end closes, so it leaves at
            // once, not after its next 5 ms sleep (which made every z3 call at least
            // that long).
            let handle = self.solver.get_context().handle();
            let stop = &self.stop;
            let (done, watched) = std::sync::mpsc::channel::<()>();
            std::thread::scope(|s| {
                s.spawn(move || {
                    let tick = std::time::Duration::from_millis(5);
                    loop {
                        if stop.expired() {
                            handle.interrupt();
                        }
                        if !matches!(
                            watched.recv_timeout(tick),
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                        ) {
                            break;
                        }
                    }
                });
                let r = self.solver.check();
                drop(done);
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
