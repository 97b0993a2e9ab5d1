//! `tsoser crosscheck --runs N`: the monitors on random SC runs
//! ([`crate::crosscheck::sample()`]), as a table in the shape of Burnim et al.'s Table 1
//! and as a `--json` object.

use crate::crosscheck::{SampleReport, SampleRow};
use crate::monitor::Kind;
use serde::Serialize;

/// A row's name: the monitor's, or `check` for the decider.
pub fn row_name(r: &SampleRow) -> &'static str {
    match r.kind {
        Some(k) => k.name(),
        None => "check",
    }
}

/// Source lines as `12,15,31` (`?` for an event built without a source line).
fn lines(key: &[usize]) -> String {
    let words: Vec<String> = key
        .iter()
        .map(|&l| if l == 0 { "?".into() } else { l.to_string() })
        .collect();
    words.join(",")
}

/// The explorer's word on a weak-model monitor's violations.
fn confirmed(r: &SampleRow) -> &'static str {
    let weak = matches!(r.kind, Some(Kind::Sober | Kind::Tso | Kind::Pso));
    match (weak && r.violations > 0, r.confirmed) {
        (false, _) => "-",
        (true, Some(true)) => "yes",
        (true, Some(false)) => "NO: robust",
        (true, None) => "unknown",
    }
}

/// The table: per monitor, runs with a violation, distinct violations (by the source
/// lines blamed), unknowns, time, and the explorer's confirmation; then the distinct
/// violations of each, most frequent first.
pub fn sample_text(file: &str, asked: usize, s: &SampleReport) -> String {
    let mut out = format!(
        "{file}: {} random SC runs{}, {} dropped (cut by assume, the loop bound or a deadlock), {} failing an assertion; {:.1} events on average; {:.3} s to run them\n",
        s.runs,
        if s.runs < asked {
            format!(" (of {asked} asked: every draw of the next one was dropped)")
        } else {
            String::new()
        },
        s.dropped,
        s.failed,
        s.mean_events,
        s.seconds,
    );
    out += &format!(
        "  {:<8} {:>10} {:>9} {:>8} {:>9}  {}\n",
        "monitor", "violating", "distinct", "unknown", "time (s)", "confirmed by explore"
    );
    for r in &s.rows {
        out += &format!(
            "  {:<8} {:>10} {:>9} {:>8} {:>9.3}  {}\n",
            row_name(r),
            r.violations,
            r.distinct.len(),
            r.unknown,
            r.seconds,
            confirmed(r)
        );
    }
    for r in s.rows.iter().filter(|r| !r.distinct.is_empty()) {
        let mut d: Vec<(&Vec<usize>, &usize)> = r.distinct.iter().collect();
        d.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = d
            .iter()
            .map(|(k, n)| format!("lines {} ({n})", lines(k)))
            .collect();
        out += &format!("  {}: {}\n", row_name(r), shown.join("; "));
    }
    out
}

/// One row of `crosscheck --runs --json`.
#[derive(Clone, Debug, Serialize)]
pub struct SampleRowJson {
    /// `sc-ser` | `sober` | `tso` | `pso` | `fenced` | `check`.
    pub monitor: &'static str,
    pub violating_runs: usize,
    /// The distinct violations: the source lines blamed and the runs that blame them.
    pub distinct: Vec<DistinctJson>,
    pub unknown_runs: usize,
    pub seconds: f64,
    /// For sober, tso and pso with a violation: true when the explorer confirms it,
    /// false when it finds the program robust (a disagreement), null when unknown.
    pub confirmed: Option<bool>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DistinctJson {
    pub lines: Vec<usize>,
    pub runs: usize,
}

/// `tsoser crosscheck --runs N --json`, one object a program.
#[derive(Clone, Debug, Serialize)]
pub struct SampleJson {
    pub schema: u32,
    pub file: String,
    pub runs_asked: usize,
    pub runs: usize,
    pub seed: u64,
    pub dropped: usize,
    pub failed: usize,
    pub mean_events: f64,
    pub seconds: f64,
    pub monitors: Vec<SampleRowJson>,
}

impl SampleJson {
    pub fn of(file: &str, asked: usize, seed: u64, s: &SampleReport) -> SampleJson {
        SampleJson {
            schema: super::json::JSON_SCHEMA,
            file: file.to_string(),
            runs_asked: asked,
            runs: s.runs,
            seed,
            dropped: s.dropped,
            failed: s.failed,
            mean_events: s.mean_events,
            seconds: s.seconds,
            monitors: s
                .rows
                .iter()
                .map(|r| SampleRowJson {
                    monitor: row_name(r),
                    violating_runs: r.violations,
                    distinct: r
                        .distinct
                        .iter()
                        .map(|(k, &n)| DistinctJson {
                            lines: k.clone(),
                            runs: n,
                        })
                        .collect(),
                    unknown_runs: r.unknown,
                    seconds: r.seconds,
                    confirmed: r.confirmed,
                })
                .collect(),
        }
    }
}
