//! `tsoser check`'s answer as text or one JSON object.

use super::config::CheckConfig;
use crate::args::{CheckArgs, WitnessArg};
use crate::out::warn_raw;
use anyhow::Result;
use tsoser::check::decide::{self, Question};
use tsoser::check::{fpt, Semantics, Verdict};
use tsoser::output::witness::{self, Stats};
use tsoser::solver::SolverKind;
use tsoser::trace::Trace;

pub(crate) fn semantics_name(s: Semantics) -> &'static str {
    match s {
        Semantics::Exact => "exact",
        Semantics::Paper => "paper",
    }
}

pub(super) fn solver_name(s: SolverKind) -> &'static str {
    match s {
        SolverKind::Varisat => "varisat",
        SolverKind::Z3 => "z3",
        SolverKind::Cadical => "cadical",
    }
}

/// One file's answer, as printed: `trace` is `None` when the timeout came before the
/// trace was read; `chains` are fpt's (with `--stats`).
#[derive(Clone, Copy)]
pub(super) struct Answer<'a> {
    pub(super) file: &'a str,
    pub(super) trace: Option<&'a Trace>,
    pub(super) verdict: &'a Verdict,
    /// The words of an unknown verdict.
    pub(super) reason: Option<&'a str>,
    pub(super) realizable: Option<bool>,
    pub(super) stats: &'a Stats,
    pub(super) chains: Option<&'a [fpt::ChainProfile]>,
}

/// The words of an unknown verdict.
pub(super) fn reason_of(v: &Verdict) -> Option<String> {
    match v {
        Verdict::Unknown(u) => Some(witness::unknown_text(u)),
        _ => None,
    }
}

/// The `--json` object of one file's answer.
pub(super) fn check_report<'a>(
    a: &CheckArgs,
    cfg: &CheckConfig,
    ans: &Answer<'a>,
) -> tsoser::output::json::CheckReport<'a> {
    let Answer {
        file: fname,
        trace,
        verdict,
        reason,
        realizable,
        stats,
        chains,
    } = *ans;
    let sc = cfg.question == Question::Sc;
    let (algo_name, solver, profiles) = match (sc, cfg.algo) {
        (true, _) => ("sc", None, None),
        (_, decide::Algo::Auto { solver: s, .. }) => ("auto", Some(solver_name(s)), None),
        (_, decide::Algo::Sat(s)) => ("sat", Some(solver_name(s)), None),
        (_, decide::Algo::Fpt { fig4 }) => ("fpt", None, Some(if fig4 { "fig4" } else { "exact" })),
        (_, decide::Algo::Brute) => ("brute", None, None),
    };
    let stats_json = a.stats.then(|| {
        let mut v = stats.to_json();
        if let Some(c) = chains {
            v["chains"] = serde_json::to_value(c).unwrap_or_default();
        }
        v
    });
    tsoser::output::json::CheckReport {
        schema: tsoser::output::json::schema(),
        file: fname.to_string(),
        trace: trace.map(tsoser::output::json::TraceInfo::of),
        model: if sc { "sc" } else { "tso" },
        algo: algo_name,
        solver,
        profiles,
        semantics: semantics_name(cfg.semantics()),
        verdict: verdict.name(),
        reason: reason.map(String::from),
        unknown: match verdict {
            Verdict::Unknown(u) => Some(u.clone()),
            _ => None,
        },
        paper_realizable: realizable,
        witness: trace.and_then(|t| {
            let detail = a.witness.map_or(witness::Detail::Full, WitnessArg::lib);
            witness::witness_json_with(t, verdict, detail)
        }),
        stats: stats_json,
    }
}

/// Prints the answer of `check` (text or `--json`).
pub(super) fn print_verdict(a: &CheckArgs, cfg: &CheckConfig, ans: &Answer) -> Result<()> {
    let Answer {
        file: fname,
        trace,
        verdict,
        reason,
        realizable,
        stats,
        chains,
    } = *ans;
    let (sc, semantics) = (cfg.question == Question::Sc, cfg.semantics());
    if a.json {
        // Written as it is made: a full witness of 10⁷ events is GiBs of JSON.
        crate::out::json_write(&check_report(a, cfg, ans))?;
        return Ok(());
    }
    let what = if sc {
        "SC-serializable (trace read as an SC run)".to_string()
    } else {
        let algo = match cfg.algo {
            decide::Algo::Auto { solver: s, .. } => {
                format!("auto: fpt + sat/{}", solver_name(s))
            }
            decide::Algo::Sat(s) => format!("sat/{}", solver_name(s)),
            decide::Algo::Fpt { fig4: true } => {
                "fpt, Fig. 4 profiles: a yes may be wrong".to_string()
            }
            decide::Algo::Fpt { fig4: false } => "fpt".to_string(),
            decide::Algo::Brute => "brute".to_string(),
        };
        format!(
            "TSO-serializable [{} semantics, {algo}]",
            semantics_name(semantics)
        )
    };
    let name = trace
        .and_then(|t| t.name.as_deref())
        .map(|n| format!("{} ({fname})", tsoser::text::escaped(n)))
        .unwrap_or_else(|| fname.to_string());
    match (verdict, trace) {
        (Verdict::Serializable, _) => outln!("{name}: {what}: yes"),
        (Verdict::Unknown(_), _) => {
            outln!("{name}: {what}: unknown — {}", reason.unwrap_or_default())
        }
        (Verdict::Violation(w), Some(trace)) => {
            outln!("{name}: {what}: NO");
            out!(
                "{}",
                witness::witness_text_with(trace, w, a.witness.unwrap_or(WitnessArg::Cycle).lib())
            );
            match realizable {
                Some(true) => {
                    outln!("an execution has a violation too (exact semantics agrees)")
                }
                Some(false) => outln!(
                    "no TSO execution of this trace has a violation: the paper's graph over-approximates here (docs/semantics.md §5)"
                ),
                None => {}
            }
        }
        (Verdict::Violation(_), None) => outln!("{name}: {what}: NO"),
    }
    if a.stats {
        warn_raw(&stats.to_text());
        if let Some(c) = chains {
            warn_raw(&chains_text(c));
        }
    }
    Ok(())
}

/// The chain partition of `--algo fpt --stats`: one line a chain (at most 32).
pub(super) fn chains_text(chains: &[fpt::ChainProfile]) -> String {
    let mut s = format!(
        "chain partition of the widest component (Thm. 8): {} chains\n",
        chains.len()
    );
    for (i, c) in chains.iter().enumerate().take(32) {
        s += &format!(
            "  chain {i}: {} transactions [{}], {} entries, {} exits, profiles: {} (Fig. 4 classes), {} (exact)\n",
            c.transactions,
            c.threads.join(" "),
            c.entries,
            c.exits,
            c.fig4_profiles,
            c.exact_profiles
        );
    }
    if chains.len() > 32 {
        s += &format!("  … {} more (all in --json)\n", chains.len() - 32);
    }
    s
}
