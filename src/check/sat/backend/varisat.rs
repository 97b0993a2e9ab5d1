//! varisat: pure Rust CDCL, incremental. varisat has no interrupt; a solve call ends
//! when its proof output fails, so the proof goes to [`StopWriter`], which discards it
//! and fails once the run's [`Stop`] says so (varisat's own format: DRAT has no incremental clauses).

use super::{Answer, Backend};
use crate::check::sat::encode::{Formula, Lit};
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

/// varisat: the formula's clauses and its order encoding.
pub struct Varisat {
    solver: varisat::Solver<'static>,
    model: Vec<bool>,
}

impl Varisat {
    /// The formula in a new solver that gives up when `stop` expires (`None`: never).
    pub fn new(f: &Formula, stop: Option<&Stop>) -> Varisat {
        let mut solver = varisat::Solver::new();
        if let Some(stop) = stop {
            let w = StopWriter(stop.clone());
            solver.write_proof(w, varisat::ProofFormat::Varisat);
        }
        let lit = |l: Lit| varisat::Lit::from_dimacs(l as isize);
        for c in f.clauses.iter().chain(&f.order_clauses) {
            let c: Vec<varisat::Lit> = c.iter().map(|&l| lit(l)).collect();
            solver.add_clause(&c);
        }
        // Make sure every variable exists in the solver, so the model covers it.
        for v in 1..=f.num_vars() as Lit {
            solver.add_clause(&[lit(v), lit(-v)]);
        }
        Varisat {
            solver,
            model: Vec::new(),
        }
    }
}

impl Backend for Varisat {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Pigeons into fewer holes: unsatisfiable, and far beyond a second for CDCL.
    fn pigeonhole(b: &mut Varisat, holes: Lit) {
        let v = |p: Lit, h: Lit| p * holes + h + 1;
        for p in 0..=holes {
            b.add_clause(&(0..holes).map(|h| v(p, h)).collect::<Vec<_>>());
        }
        for h in 0..holes {
            for p in 0..=holes {
                for q in p + 1..=holes {
                    b.add_clause(&[-v(p, h), -v(q, h)]);
                }
            }
        }
    }

    #[test]
    fn a_long_solve_call_ends_at_the_deadline() {
        let stop = Stop::after(Some(Duration::from_millis(300)));
        let mut b = Varisat::new(&Formula::default(), Some(&stop));
        pigeonhole(&mut b, 11);
        let t = Instant::now();
        assert_eq!(b.solve(), Answer::Unknown);
        assert!(
            t.elapsed() < Duration::from_millis(600),
            "{:?}",
            t.elapsed()
        );
    }
}
