//! CaDiCaL (the `cadical-sys` crate builds the C++ sources it ships): incremental,
//! interruptible — a terminator polls the run's [`Stop`] during search — and, given
//! order graphs, with an external propagator ([`Acyclic`]) that keeps the order atoms
//! acyclic during search instead of by lazy cuts between calls.

use super::{Answer, Lit, OrderGraph, Problem, Solver};
use crate::stop::Stop;
use cadical_sys::{CaDiCal, ExternalPropagator, Status, Terminator};
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

/// CaDiCaL with the problem's clauses, its order clauses and its order graphs.
pub struct Cadical {
    solver: CaDiCal,
    model: Vec<bool>,
    vars: usize,
    /// Cycles the propagator turned into clauses during search.
    order_clauses: Rc<Cell<u64>>,
}

/// Polls the run's stop condition from inside CaDiCaL's search.
struct StopPoll(Stop);

impl Terminator for StopPoll {
    fn terminated(&mut self) -> bool {
        self.0.expired()
    }
}

/// Most clauses queued at once (one is enough to make the solver backtrack).
const MAX_QUEUED: usize = 8;

/// The order atoms kept acyclic during search, in each of its [`OrderGraph`]s: each
/// assignment that closes a cycle becomes a clause the solver learns at once.
struct Acyclic {
    graphs: Vec<OrderGraph>,
    queued: VecDeque<Vec<Lit>>,
    /// Position in the front clause while the solver reads it.
    next_lit: usize,
    found: Rc<Cell<u64>>,
}

impl ExternalPropagator for Acyclic {
    fn notify_assignment(&mut self, lits: &[i32]) {
        for &l in lits {
            for g in &mut self.graphs {
                if let Some(clause) = g.assign(l) {
                    self.found.set(self.found.get() + 1);
                    if self.queued.len() < MAX_QUEUED {
                        self.queued.push_back(clause);
                    }
                }
            }
        }
    }

    fn notify_new_decision_level(&mut self) {
        self.graphs.iter_mut().for_each(OrderGraph::new_level);
    }

    fn notify_backtrack(&mut self, new_level: usize) {
        self.graphs.iter_mut().for_each(|g| g.backtrack(new_level));
    }

    fn cb_check_found_model(&mut self, _model: &[i32]) -> bool {
        // Every assignment was checked as it came: a cycle is in the queue.
        self.queued.is_empty()
    }

    fn cb_has_external_clause(&mut self, forgettable: &mut bool) -> bool {
        *forgettable = true;
        !self.queued.is_empty()
    }

    fn cb_add_external_clause_lit(&mut self) -> i32 {
        let Some(front) = self.queued.front() else {
            return 0;
        };
        if let Some(&l) = front.get(self.next_lit) {
            self.next_lit += 1;
            return l;
        }
        self.next_lit = 0;
        self.queued.pop_front();
        0
    }
}

impl Cadical {
    /// The solver on `p`, its graphs watched during search.
    pub fn new(p: Problem<'_>, stop: &Stop) -> Cadical {
        let mut b = Cadical::with_graphs(p.vars, stop, p.graphs);
        for c in p.clauses.iter().chain(p.order_clauses) {
            b.solver.clause6(c);
        }
        b
    }

    /// An empty solver over variables `1..=vars` whose atoms `graphs` keep acyclic
    /// during search (each graph on its own: an assignment is refuted when it closes
    /// a cycle in any of them).
    fn with_graphs(vars: usize, stop: &Stop, graphs: Vec<OrderGraph>) -> Cadical {
        let mut solver = CaDiCal::new();
        // Measured (docs/history.md, "The order propagator on large components"): on
        // realistic components of 10⁶ variables each propagated cut made CaDiCaL copy
        // every phase when its trail grew again (`update_target_and_best`); target phases only in stable mode
        // (rephase = 2) and false as the first phase cut solving there 4.8 s → 0.25 s,
        // and the hard dense traces 7 % (one run each).
        for (name, value) in [("rephase", 2), ("phase", 0)] {
            let known = solver.set(name, value);
            debug_assert!(known, "CaDiCaL option {name}");
        }
        if vars > 0 {
            solver.resize(vars as i32);
        }
        if stop.can_stop() {
            solver.connect_terminator(StopPoll(stop.clone()));
        }
        let found = Rc::new(Cell::new(0));
        if !graphs.is_empty() {
            let mut observed: Vec<Lit> = graphs.iter().flat_map(|g| g.vars()).collect();
            observed.sort_unstable();
            observed.dedup();
            solver.connect_external_propagator(Acyclic {
                graphs,
                queued: VecDeque::new(),
                next_lit: 0,
                found: found.clone(),
            });
            for v in observed {
                solver.add_observed_var(v);
            }
        }
        Cadical {
            solver,
            model: Vec::new(),
            vars,
            order_clauses: found,
        }
    }
}

impl Solver for Cadical {
    fn add_clause(&mut self, clause: &[Lit]) {
        self.solver.clause6(clause);
    }

    fn solve(&mut self) -> Answer {
        match self.solver.solve() {
            Status::SATISFIABLE => {
                self.model = vec![false; self.vars + 1];
                for v in 1..=self.vars {
                    self.model[v] = self.solver.val(v as i32) > 0;
                }
                Answer::Sat
            }
            Status::UNSATISFIABLE => Answer::Unsat,
            _ => Answer::Unknown,
        }
    }

    fn value(&self, var: Lit) -> bool {
        self.model.get(var as usize).copied().unwrap_or(false)
    }

    fn name(&self) -> &'static str {
        "cadical"
    }

    fn phase(&mut self, lit: Lit) {
        self.solver.phase(lit);
    }

    fn propagated_cuts(&self) -> u64 {
        self.order_clauses.get()
    }

    fn conflicts(&self) -> Option<u64> {
        u64::try_from(self.solver.get_statistic_value("conflicts")).ok()
    }
}
