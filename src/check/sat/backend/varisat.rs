//! varisat: pure Rust CDCL, incremental; a call cannot be interrupted.

use super::{Answer, Backend};
use crate::check::sat::encode::{Formula, Lit};
use varisat::ExtendFormula;

/// varisat: the formula's clauses and its order encoding.
pub struct Varisat {
    solver: varisat::Solver<'static>,
    model: Vec<bool>,
}

impl Varisat {
    pub fn new(f: &Formula) -> Varisat {
        let mut solver = varisat::Solver::new();
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
