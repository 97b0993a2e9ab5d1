//! `tsoser check`'s flags checked into the library's question, decider and budget.

use crate::args::{Algo, CheckArgs, Model, Profiles, SemanticsArg, Solver};
use anyhow::{bail, Result};
use std::time::Duration;
use tsoser::check::decide::{self, Budget, Question};
use tsoser::check::{brute, fpt, Semantics};
use tsoser::solver::SolverKind;

/// Seconds `--timeout` accepts: positive, at most about 31 years.
pub(crate) const MAX_TIMEOUT: f64 = 1e9;
/// `--jobs` at most.
pub(crate) const MAX_JOBS: usize = 1024;

/// The checked configuration: the library's question, decider and budget.
pub(super) struct CheckConfig {
    pub(super) question: Question,
    pub(super) algo: decide::Algo,
    pub(super) budget: Budget,
    pub(super) timeout: Option<Duration>,
    /// `--max-memory`, in bytes.
    pub(super) max_memory: Option<usize>,
    /// Threads that lex the trace file beside the reader (`--read-threads`; the default
    /// of one file, which a batch sets again).
    pub(super) lexers: usize,
}

impl CheckConfig {
    /// The semantics asked for (exact for `--model sc`, which has only one).
    pub(super) fn semantics(&self) -> Semantics {
        match self.question {
            Question::Tso(s) => s,
            Question::Sc => Semantics::Exact,
        }
    }
}

/// `--timeout SECONDS`: positive, finite, at most [`MAX_TIMEOUT`].
pub(crate) fn timeout_arg(t: Option<f64>) -> Result<Option<Duration>> {
    match t {
        None => Ok(None),
        Some(t) if t > 0.0 && t <= MAX_TIMEOUT => Ok(Some(Duration::from_secs_f64(t))),
        Some(_) => bail!("--timeout takes a positive number of seconds, at most {MAX_TIMEOUT:e}"),
    }
}

/// Raw flags → a checked configuration; an option that does not apply to the chosen
/// question or decider is a usage error naming it.
pub(super) fn checked(a: &CheckArgs) -> Result<CheckConfig> {
    let algo = a.algo.unwrap_or(Algo::Auto);
    let not_for = |given: bool, flag: &str, of: &str, what: &str| -> Result<()> {
        if given {
            bail!("{flag} is an option of {of}; it does not apply to {what}");
        }
        Ok(())
    };
    if a.model == Model::Sc {
        let sc = "--model sc (SC-serializability has one polynomial check)";
        not_for(a.algo.is_some(), "--algo", "--model tso", sc)?;
        not_for(a.semantics.is_some(), "--semantics", "--model tso", sc)?;
    }
    let what = match (a.model, algo) {
        (Model::Sc, _) => "--model sc",
        (_, Algo::Brute) => "--algo brute",
        (_, Algo::Sat) => "--algo sat",
        (_, Algo::Fpt) => "--algo fpt",
        (_, Algo::Auto) => "--algo auto",
    };
    let tso = a.model == Model::Tso;
    let brute = tso && algo == Algo::Brute;
    let sat = tso && matches!(algo, Algo::Sat | Algo::Auto);
    let fpt_ = tso && matches!(algo, Algo::Fpt | Algo::Auto);
    let (b, s, f) = ("--algo brute", "--algo sat or auto", "--algo fpt or auto");
    not_for(
        a.max_executions.is_some() && !brute,
        "--max-executions",
        b,
        what,
    )?;
    not_for(a.solver.is_some() && !sat, "--solver", s, what)?;
    not_for(a.jobs.is_some() && !fpt_, "--jobs", f, what)?;
    not_for(a.max_jumps.is_some() && !fpt_, "--max-jumps", f, what)?;
    let fig = tso && algo == Algo::Fpt;
    not_for(
        a.profiles.is_some() && !fig,
        "--profiles",
        "--algo fpt",
        what,
    )?;
    let jobs = a.jobs.unwrap_or(0);
    if jobs > MAX_JOBS {
        bail!("--jobs takes 0 (one per core) to {MAX_JOBS}");
    }
    let timeout = timeout_arg(a.timeout)?;
    let max_memory = match a.max_memory {
        Some(mib) if mib == 0 || mib > 1 << 30 => bail!("--max-memory takes 1 to 2^30 MiB"),
        m => m.map(|mib| mib << 20),
    };
    let semantics = a.semantics.map_or(Semantics::Exact, SemanticsArg::lib);
    let fig4 = a.profiles == Some(Profiles::Fig4);
    let question = match a.model {
        Model::Sc => Question::Sc,
        Model::Tso => Question::Tso(semantics),
    };
    let solver = a.solver.map_or(SolverKind::DEFAULT, Solver::lib);
    let algo = match algo {
        Algo::Auto => decide::Algo::Auto {
            solver,
            first_jumps: tsoser::check::auto::FPT_FIRST_JUMPS,
        },
        Algo::Brute => decide::Algo::Brute,
        Algo::Sat => decide::Algo::Sat(solver),
        Algo::Fpt => decide::Algo::Fpt { fig4 },
    };
    let budget = Budget {
        max_executions: a.max_executions.unwrap_or(brute::DEFAULT_MAX),
        max_jumps: a.max_jumps.unwrap_or(fpt::DEFAULT_MAX),
        jobs,
        ..Budget::default()
    };
    Ok(CheckConfig {
        question,
        algo,
        budget,
        timeout,
        max_memory,
        lexers: crate::out::read_threads(a.read_threads, 1, true)?,
    })
}
