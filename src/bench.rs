//! The measurement harness behind `tsoser bench`: generated families of traces, each
//! decider run on each trace through [`crate::check::decide`] with a timeout, one typed
//! [`Run`] per run, and the fitted exponent of time in the trace length.

use crate::check::decide::{decide, Algo, Budget, DecideError, DeciderStats, Question};
use crate::check::sat::SolverKind;
use crate::check::{Semantics, Verdict};
use crate::trace::{gen, Trace};
use std::time::Duration;

/// A decider of the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    /// `--algo auto`: fpt alone, then fpt and sat racing, per component.
    Auto,
    Fpt,
    Varisat,
    Z3,
    Cadical,
}

impl Decider {
    /// The name in the CSV: `auto`, `fpt`, `sat/varisat`, `sat/z3`, `sat/cadical`.
    pub fn name(self) -> &'static str {
        match self {
            Decider::Auto => "auto",
            Decider::Fpt => "fpt",
            Decider::Varisat => "sat/varisat",
            Decider::Z3 => "sat/z3",
            Decider::Cadical => "sat/cadical",
        }
    }

    pub fn algo(self) -> Algo {
        match self {
            Decider::Auto => Algo::AUTO,
            Decider::Fpt => Algo::Fpt { fig4: false },
            Decider::Varisat => Algo::Sat(SolverKind::Varisat),
            Decider::Z3 => Algo::Sat(SolverKind::Z3),
            Decider::Cadical => Algo::Sat(SolverKind::Cadical),
        }
    }

    /// Whether this build has it (z3 and CaDiCaL need their cargo features).
    pub fn available(self) -> bool {
        match self {
            Decider::Z3 => cfg!(feature = "z3"),
            Decider::Cadical => cfg!(feature = "cadical"),
            _ => true,
        }
    }
}

/// Trace families of `bench scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Serial schedule, no transaction fences: violations, found inside components.
    Serial,
    /// Serial schedule, every transaction ends with a fence: serializable.
    SerialFenced,
    /// Threads interleave event by event: violations, mostly forced cycles.
    Random,
    /// Blocks of 40 events (2 variables, single-event transactions, no fences), each
    /// closed by a fence in every thread.
    Blocks,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Serial => "serial",
            Family::SerialFenced => "serial-fenced",
            Family::Random => "random",
            Family::Blocks => "blocks",
        }
    }

    /// The trace of this family with about `events` events, `threads` threads.
    pub fn trace(self, events: usize, threads: usize, vars: usize, seed: u64) -> Trace {
        if self == Family::Blocks {
            let block = gen::Shape::dense(40, threads, 2);
            return gen::blocks(&block, (events / (40 + threads)).max(1), seed);
        }
        let shape = gen::Shape {
            threads,
            vars,
            serial: self != Family::Random,
            txn_fenced: self == Family::SerialFenced,
            ..gen::Shape::realistic(events)
        };
        gen::generate(&shape, seed)
    }
}

/// One run: the decider's verdict, wall time, peak memory, and what it counted.
#[derive(Clone, Debug)]
pub struct Run {
    pub decider: Decider,
    pub verdict: Verdict,
    pub seconds: f64,
    /// The process's peak resident set during the run, in bytes ([`crate::mem::peak_rss`],
    /// reset before the run; it includes what the process held when the run began).
    pub peak_rss: Option<u64>,
    pub stats: DeciderStats,
}

impl Run {
    /// The CSV header of [`Run::csv`].
    pub const COLUMNS: &'static str = "decider,verdict,seconds,peak_mib,solver_calls,conflicts,\
lazy_cuts,propagated_cuts,jumps_tried,variables,clauses,components,largest_component,reason";

    /// The run as CSV cells ([`Run::COLUMNS`]): empty where the decider does not count
    /// (conflicts of varisat; memory where `/proc` is missing); `reason` says why an
    /// *unknown* is one, quoted.
    pub fn csv(&self) -> String {
        let c = self.stats.summary();
        let opt = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
        let reason = match &self.verdict {
            Verdict::Unknown { reason } => format!("\"{}\"", reason.replace('"', "\"\"")),
            _ => String::new(),
        };
        format!(
            "{},{},{:.4},{},{},{},{},{},{},{},{},{},{},{}",
            self.decider.name(),
            self.verdict.name(),
            self.seconds,
            self.peak_rss.map_or(String::new(), |b| format!(
                "{:.1}",
                b as f64 / (1u64 << 20) as f64
            )),
            c.solver_calls,
            opt(c.conflicts),
            c.lazy_cuts,
            c.propagated_cuts,
            c.jumps_tried,
            c.variables,
            c.clauses,
            c.components,
            c.largest_component,
            reason
        )
    }
}

/// Runs `decider` on `trace` (exact or paper semantics) within `timeout`.
pub fn run(
    trace: &Trace,
    decider: Decider,
    semantics: Semantics,
    timeout: Duration,
) -> Result<Run, DecideError> {
    let measured = crate::mem::reset_peak_rss();
    let budget = Budget::with_timeout(timeout);
    let d = decide(trace, Question::Tso(semantics), decider.algo(), &budget)?;
    Ok(Run {
        decider,
        verdict: d.verdict,
        seconds: d.seconds,
        peak_rss: if measured {
            crate::mem::peak_rss()
        } else {
            None
        },
        stats: d.stats,
    })
}

/// Least-squares slope of log(seconds) against log(events) over `(events, seconds)`
/// points with both positive: the fitted exponent of time in n (`None` with fewer than
/// two distinct lengths).
pub fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .map(|&(n, t)| (n.ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponent_of_a_power_law_is_its_power() {
        let pts: Vec<(f64, f64)> = [1e3, 1e4, 1e5].iter().map(|&n| (n, 2e-6 * n * n)).collect();
        assert!((fitted_exponent(&pts).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(fitted_exponent(&pts[..1]), None);
    }
}
