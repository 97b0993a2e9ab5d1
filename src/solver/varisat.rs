//! varisat: pure Rust CDCL, incremental. varisat has no interrupt; a solve call ends
//! when its proof output fails, so the proof goes to [`StopWriter`], which discards it
//! and fails once the run's [`Stop`] says so (varisat's own format: DRAT has no incremental clauses).

use super::{Answer, Lit, Problem, Solver};
use crate::stop::Stop;
use std::io;
use varisat::ExtendFormula;

/// A proof sink that fails once `stop` expires: varisat then aborts the solve call
/// (`ProofIoError`). varisat writes through an 8 KiB buffer, so the stop is seen every
/// few hundred conflicts.
struct StopWriter(Stop);

impl io::Write for StopWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.expired() {
            return Err(io::Error::other("stopped"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// varisat: the problem's clauses and its order clauses.
pub struct Varisat {
    solver: varisat::Solver<'static>,
    model: Vec<bool>,
}

impl Varisat {
    /// The clauses in a new solver that gives up when `stop` expires.
    pub fn new(p: &Problem<'_>, stop: &Stop) -> Varisat {
        let mut solver = varisat::Solver::new();
        if stop.can_stop() {
            let w = StopWriter(stop.clone());
            solver.write_proof(w, varisat::ProofFormat::Varisat);
        }
        let mut v = Varisat {
            solver,
            model: Vec::new(),
        };
        for c in p.clauses.iter().chain(p.order_clauses) {
            v.add_clause(c);
        }
        v
    }
}

impl Solver for Varisat {
    fn add_clause(&mut self, clause: &[Lit]) {
        let c: Vec<varisat::Lit> = clause
            .iter()
            .map(|&l| varisat::Lit::from_dimacs(l as isize))
            .collect();
        self.solver.add_clause(&c);
    }

    fn solve(&mut self) -> Answer {
        match self.solver.solve() {
            Ok(true) => {
                let m = self.solver.model().unwrap_or_default();
                self.model = vec![false; m.len() + 1];
                for l in m {
                    if l.is_positive() {
                        self.model[l.var().to_dimacs() as usize] = true;
                    }
                }
                Answer::Sat
            }
            Ok(false) => Answer::Unsat,
            Err(_) => Answer::Unknown,
        }
    }

    fn value(&self, var: Lit) -> bool {
        self.model.get(var as usize).copied().unwrap_or(false)
    }

    fn name(&self) -> &'static str {
        "varisat"
    }

    /// A tautology per variable: varisat then knows it, and the model covers it.
    fn declare(&mut self, vars: usize) {
        for v in 1..=vars as Lit {
            self.add_clause(&[v, -v]);
        }
    }
}
