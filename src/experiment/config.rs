//! The experiment's declaration: a TOML file (or the same structure built from flags),
//! checked into a [`Config`]. Errors name the file's line.

use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A declared matrix: families × their parameters × seeds × deciders (tsoser's and
/// external ones) × semantics, with the limits of every run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Seconds per run: the decider's own `--timeout`; the run is killed 5 s later.
    #[serde(default = "default_timeout")]
    pub timeout: f64,
    /// MiB of address space per run (the run is killed past it).
    #[serde(default = "default_memory")]
    pub memory: u64,
    /// Deciders: `auto`, `fpt`, `sat/cadical`, `sat/varisat`, `sat/z3`, `brute`.
    pub deciders: Vec<String>,
    /// `exact` and/or `paper`.
    #[serde(default = "default_semantics")]
    pub semantics: Vec<String>,
    #[serde(rename = "family")]
    pub families: Vec<FamilyConfig>,
    /// Deciders outside tsoser, run beside `deciders` (after them, in this order).
    #[serde(default, rename = "external", skip_serializing_if = "Vec::is_empty")]
    pub externals: Vec<External>,
}

/// A decider outside tsoser (clingo, a checker of another tool): a command run once per
/// trace and semantics, its verdict read from its standard output. The placeholders
/// `{tsoser}` (this program's path), `{trace}` (the trace's YAML file), `{semantics}`
/// (`exact` or `paper`) and `{timeout}` (the run's timeout in whole seconds, rounded
/// up) are replaced in every word of `command`; it runs without a shell (give one,
/// `sh -c`, for pipes).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct External {
    /// The decider's name in records and plots.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// A line of the output equal to this (spaces around it aside) means serializable.
    pub serializable: String,
    /// A line equal to this means not serializable.
    pub violation: String,
    /// A line equal to this means the decider gave up: the run is *unknown*.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

impl External {
    /// `command` with its placeholders replaced.
    pub fn argv(&self, tsoser: &str, trace: &str, semantics: &str, timeout: f64) -> Vec<String> {
        let secs = (timeout.ceil() as u64).to_string();
        self.command
            .iter()
            .map(|w| {
                w.replace("{tsoser}", tsoser)
                    .replace("{trace}", trace)
                    .replace("{semantics}", semantics)
                    .replace("{timeout}", &secs)
            })
            .collect()
    }

    fn check(&self, names: &[&str]) -> Result<(), String> {
        let ok = |c: char| c.is_ascii_alphanumeric() || "-_.+".contains(c);
        if self.name.is_empty() || !self.name.chars().all(ok) {
            return Err(format!(
                "`name` `{}`: letters, digits, `-`, `_`, `.`, `+`",
                self.name
            ));
        }
        if DECIDERS.contains(&self.name.as_str()) || names.contains(&self.name.as_str()) {
            return Err(format!(
                "`name` `{}` is a decider of the matrix already",
                self.name
            ));
        }
        if self.command.first().is_none_or(String::is_empty) {
            return Err("`command` needs a program".into());
        }
        if !self.command.iter().any(|w| w.contains("{trace}")) {
            return Err("`command` never names the trace (`{trace}`)".into());
        }
        let lines = [
            Some(&self.serializable),
            Some(&self.violation),
            self.unknown.as_ref(),
        ];
        let lines: Vec<&str> = lines.into_iter().flatten().map(|l| l.trim()).collect();
        if lines.iter().any(|l| l.is_empty()) {
            return Err("`serializable`, `violation` and `unknown` need text".into());
        }
        if (1..lines.len()).any(|i| lines[..i].contains(&lines[i])) {
            return Err("`serializable`, `violation` and `unknown` must differ".into());
        }
        Ok(())
    }
}

/// One family and the values of its parameters (each list is a dimension).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "name", rename_all = "kebab-case")]
pub enum FamilyConfig {
    /// `gen` with the hard-regime shape: random schedule, no fences or rmw.
    Dense {
        events: Vec<usize>,
        threads: Vec<usize>,
        #[serde(default = "two")]
        vars: Vec<usize>,
        #[serde(default = "one")]
        txn_len: Vec<usize>,
        #[serde(default = "zero")]
        pairs: Vec<usize>,
        /// The probability of a write (the rest are reads).
        #[serde(default = "half")]
        write: Vec<f64>,
        seeds: u64,
    },
    /// Blocks of 40 dense events (2 variables, single-event transactions), each closed
    /// by a fence in every thread.
    Blocks {
        events: Vec<usize>,
        threads: Vec<usize>,
        seeds: u64,
    },
    /// The realistic shape (`gen`: transactions of ~8 events, a fence every ~50), serial
    /// schedule (`--schedule serial`); `fenced`: every transaction ends with a fence
    /// (serializable).
    Serial {
        events: Vec<usize>,
        threads: Vec<usize>,
        #[serde(default = "thousand")]
        vars: Vec<usize>,
        #[serde(default)]
        fenced: bool,
        seeds: u64,
    },
    /// The realistic shape, threads interleaved event by event (`gen`'s default
    /// schedule): violations, mostly forced cycles.
    Random {
        events: Vec<usize>,
        threads: Vec<usize>,
        #[serde(default = "thousand")]
        vars: Vec<usize>,
        seeds: u64,
    },
    /// `gen --family sat --random`: random k-SAT, `ratio` clauses per variable.
    Sat {
        vars: Vec<usize>,
        #[serde(default = "threshold")]
        ratio: f64,
        #[serde(default = "three")]
        clause_len: usize,
        seeds: u64,
    },
    /// Every `.yaml` and `.std` file of a directory (relative to the config file).
    Dir { path: PathBuf },
}

fn default_timeout() -> f64 {
    60.0
}
fn default_memory() -> u64 {
    4096
}
fn default_semantics() -> Vec<String> {
    vec!["exact".into()]
}
fn zero() -> Vec<usize> {
    vec![0]
}
fn one() -> Vec<usize> {
    vec![1]
}
fn two() -> Vec<usize> {
    vec![2]
}
fn thousand() -> Vec<usize> {
    vec![1000]
}
fn half() -> Vec<f64> {
    vec![0.5]
}
fn three() -> usize {
    3
}
fn threshold() -> f64 {
    4.26
}

/// The deciders an experiment can run.
pub const DECIDERS: [&str; 6] = [
    "auto",
    "fpt",
    "sat/cadical",
    "sat/varisat",
    "sat/z3",
    "brute",
];

/// The most runs a matrix may have: each dimension is bounded, but not their product
/// (expanding 10¹⁰ runs would exhaust the memory long before any ran).
pub const MAX_RUNS: u128 = 1_000_000;

impl Config {
    /// The runs the declaration expands to, counting none for a directory family (its
    /// files are counted when it is read); saturates.
    pub fn runs(&self) -> u128 {
        let len = |n: usize| n as u128;
        let traces = self.families.iter().fold(0u128, |sum, f| {
            let n = match f {
                FamilyConfig::Dense {
                    events,
                    threads,
                    vars,
                    txn_len,
                    pairs,
                    write,
                    seeds,
                } => [
                    events.len(),
                    threads.len(),
                    vars.len(),
                    txn_len.len(),
                    pairs.len(),
                    write.len(),
                ]
                .into_iter()
                .fold(u128::from(*seeds), |p, n| p.saturating_mul(len(n))),
                FamilyConfig::Blocks {
                    events,
                    threads,
                    seeds,
                } => len(events.len())
                    .saturating_mul(len(threads.len()))
                    .saturating_mul(u128::from(*seeds)),
                FamilyConfig::Serial {
                    events,
                    threads,
                    vars,
                    seeds,
                    ..
                }
                | FamilyConfig::Random {
                    events,
                    threads,
                    vars,
                    seeds,
                } => len(events.len())
                    .saturating_mul(len(threads.len()))
                    .saturating_mul(len(vars.len()))
                    .saturating_mul(u128::from(*seeds)),
                FamilyConfig::Sat { vars, seeds, .. } => {
                    len(vars.len()).saturating_mul(u128::from(*seeds))
                }
                FamilyConfig::Dir { .. } => 0,
            };
            sum.saturating_add(n)
        });
        traces
            .saturating_mul(len(self.deciders.len() + self.externals.len()))
            .saturating_mul(len(self.semantics.len()))
    }

    /// Parses and checks a TOML declaration.
    pub fn parse(text: &str) -> Result<Config, Error> {
        // The line of the key (or quoted value) the message names (`x`), if any; for a
        // family's or an external decider's problem ("family N: …", "external N: …"),
        // searched from its table's header on.
        let named = |message: &str| {
            let name = message.split('`').nth(1).filter(|n| !n.is_empty())?;
            let quoted = format!("\"{name}\"");
            let table = ["family", "external"]
                .into_iter()
                .find(|t| message.starts_with(&format!("{t} ")));
            let from = table
                .and_then(|t| {
                    let n = message[t.len() + 1..]
                        .split(':')
                        .next()?
                        .parse::<usize>()
                        .ok()?;
                    Some((format!("[[{t}]]"), n))
                })
                .and_then(|(header, n)| {
                    text.lines()
                        .enumerate()
                        .filter(|(_, l)| l.trim_start().starts_with(&header))
                        .nth(n.checked_sub(1)?)
                        .map(|(i, _)| i)
                })
                .unwrap_or(0);
            text.lines()
                .enumerate()
                .skip(from)
                .find(|(_, l)| {
                    let l = l.trim_start();
                    let key = l
                        .strip_prefix(name)
                        .is_some_and(|rest| rest.trim_start().starts_with('='));
                    key || l.contains(&quoted)
                })
                .map(|(i, _)| i + 1)
        };
        let c: Config = toml::from_str(text).map_err(|e| {
            let message = e.message().to_string();
            let at_span = e.span().map(|s| {
                let end = s.start.min(text.len());
                text.as_bytes()[..end]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1
            });
            // serde's "unknown field/variant" errors carry the span of the whole table.
            let line = if message.starts_with("unknown") {
                named(&message).or(at_span)
            } else {
                at_span
            };
            Error::Format {
                line: line.unwrap_or(0),
                message,
            }
        })?;
        c.rules().map_err(|message| Error::Format {
            line: named(&message).unwrap_or(0),
            message,
        })?;
        Ok(c)
    }

    /// The checks TOML's types cannot say (an [`Error::Format`] at line 0).
    pub fn check(&self) -> Result<(), Error> {
        self.rules()
            .map_err(|message| Error::Format { line: 0, message })
    }

    fn rules(&self) -> Result<(), String> {
        if !(self.timeout > 0.0 && self.timeout <= 1e6) {
            return Err(format!(
                "`timeout` {} is not in (0, 10⁶] seconds",
                self.timeout
            ));
        }
        if !(64..=1 << 30).contains(&self.memory) {
            return Err(format!("`memory` {} MiB: 64 to 2³⁰", self.memory));
        }
        if self.deciders.is_empty() {
            return Err("`deciders` is empty".into());
        }
        for d in &self.deciders {
            if !DECIDERS.contains(&d.as_str()) {
                return Err(format!(
                    "`deciders`: unknown `{d}` (known: {})",
                    DECIDERS.join(", ")
                ));
            }
            let built = match d.as_str() {
                "sat/z3" => cfg!(feature = "z3"),
                "sat/cadical" => cfg!(feature = "cadical"),
                _ => true,
            };
            if !built {
                return Err(format!(
                    "`deciders`: `{d}` is not in this build (cargo feature {})",
                    d.trim_start_matches("sat/")
                ));
            }
        }
        for s in &self.semantics {
            if s != "exact" && s != "paper" {
                return Err(format!("`semantics`: `{s}` is neither exact nor paper"));
            }
        }
        if self.semantics.is_empty() || self.families.is_empty() {
            return Err("`semantics` and `family` need at least one entry".into());
        }
        for (i, f) in self.families.iter().enumerate() {
            f.check().map_err(|m| format!("family {}: {m}", i + 1))?;
        }
        for (i, x) in self.externals.iter().enumerate() {
            let before: Vec<&str> = self.externals[..i]
                .iter()
                .map(|x| x.name.as_str())
                .collect();
            x.check(&before)
                .map_err(|m| format!("external {}: {m}", i + 1))?;
        }
        runs_within_cap(self.runs())
    }
}

/// The error of a matrix of `runs` runs past [`MAX_RUNS`] (none within it).
pub fn too_many_runs(runs: u128) -> Result<(), Error> {
    runs_within_cap(runs).map_err(|message| Error::Format { line: 0, message })
}

fn runs_within_cap(runs: u128) -> Result<(), String> {
    if runs <= MAX_RUNS {
        return Ok(());
    }
    let n = if runs == u128::MAX {
        "more than 10³⁸".to_string()
    } else {
        runs.to_string()
    };
    Err(format!(
        "the matrix has {n} runs (values × seeds × deciders × semantics, over the \
families), more than the cap of {MAX_RUNS}: declare fewer"
    ))
}

impl FamilyConfig {
    fn check(&self) -> Result<(), String> {
        let nonzero = |name: &str, v: &[usize], max: usize| {
            if v.is_empty() || v.iter().any(|&x| x == 0 || x > max) {
                Err(format!("`{name}` needs values in 1..={max}"))
            } else {
                Ok(())
            }
        };
        let seeds = |s: u64| {
            if (1..=1_000_000).contains(&s) {
                Ok(())
            } else {
                Err(format!("`seeds` {s}: 1 to 10⁶"))
            }
        };
        match self {
            FamilyConfig::Dense {
                events,
                threads,
                vars,
                txn_len,
                pairs,
                write,
                seeds: s,
            } => {
                nonzero("events", events, 100_000_000)?;
                nonzero("threads", threads, 1 << 16)?;
                nonzero("vars", vars, 1 << 20)?;
                nonzero("txn_len", txn_len, 1 << 20)?;
                if pairs.is_empty() {
                    return Err("`pairs` is empty".into());
                }
                if write.is_empty() || write.iter().any(|w| !(0.0..=1.0).contains(w)) {
                    return Err("`write` needs probabilities in [0, 1]".into());
                }
                seeds(*s)
            }
            FamilyConfig::Blocks {
                events,
                threads,
                seeds: s,
            } => {
                nonzero("events", events, 100_000_000)?;
                nonzero("threads", threads, 1 << 16)?;
                seeds(*s)
            }
            FamilyConfig::Serial {
                events,
                threads,
                vars,
                seeds: s,
                ..
            }
            | FamilyConfig::Random {
                events,
                threads,
                vars,
                seeds: s,
            } => {
                nonzero("events", events, 100_000_000)?;
                nonzero("threads", threads, 1 << 16)?;
                nonzero("vars", vars, 1 << 20)?;
                seeds(*s)
            }
            FamilyConfig::Sat {
                vars,
                ratio,
                clause_len,
                seeds: s,
            } => {
                nonzero("vars", vars, 1 << 20)?;
                if vars.iter().any(|&v| v < *clause_len) || *clause_len == 0 {
                    return Err(format!("`clause_len` {clause_len}: 1 to the fewest `vars`"));
                }
                if !(*ratio > 0.0 && *ratio <= 100.0) {
                    return Err(format!("`ratio` {ratio}: in (0, 100]"));
                }
                seeds(*s)
            }
            FamilyConfig::Dir { .. } => Ok(()),
        }
    }

    /// The family's name in records and plots.
    pub fn name(&self) -> &'static str {
        match self {
            FamilyConfig::Dense { .. } => "dense",
            FamilyConfig::Blocks { .. } => "blocks",
            FamilyConfig::Serial { fenced: false, .. } => "serial",
            FamilyConfig::Serial { fenced: true, .. } => "serial-fenced",
            FamilyConfig::Random { .. } => "random",
            FamilyConfig::Sat { .. } => "sat",
            FamilyConfig::Dir { .. } => "dir",
        }
    }
}
