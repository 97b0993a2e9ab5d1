//! `tsoser suite`: every `.litmus` test and C program (`.c`, `.i`) of a directory
//! explored in one process (in parallel, one test per core). A litmus test's verdict is
//! whether its final condition holds, a C program's whether an assertion fails; each is
//! compared with an expected-verdict CSV in Dat3M's format (`…/NAME.litmus,1` when the
//! verdict is yes) or, for C, SV-COMP's `MANIFEST.csv` (its `unreach-call` rows).

use super::{run as explore_one, Exploration, Options};
use crate::error::{Error, FileError};
use crate::program::{read_program_with, Program, ReadOptions};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Expected verdicts by test file name.
pub type Expected = HashMap<String, bool>;

/// Reads an expected-verdict CSV: `path,0|1` per line, or SV-COMP's manifest
/// (`task,input_file,property,expected_verdict`, whose `unreach-call` rows expect an
/// assertion to fail when the verdict is `false`); the key is the file name, which one
/// line at most may name.
pub fn read_expected(csv: &Path) -> Result<Expected, FileError> {
    let wrap = |error| FileError {
        file: csv.display().to_string(),
        error,
    };
    let text = std::fs::read_to_string(csv).map_err(|e| wrap(Error::Io(e)))?;
    parse_expected(&text).map_err(wrap)
}

/// SV-COMP's manifest header.
const MANIFEST: &str = "task,input_file,property,expected_verdict";

/// Parses an expected-verdict CSV (see [`read_expected`]); errors name their line.
pub fn parse_expected(text: &str) -> Result<Expected, Error> {
    let mut want = Expected::new();
    // Each test's line; a test listed twice (same file name) is an error.
    let mut lines: HashMap<String, usize> = HashMap::new();
    let manifest = text.lines().next().is_some_and(|l| l.trim() == MANIFEST);
    for (i, line) in text
        .lines()
        .enumerate()
        .skip(manifest as usize)
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |message: String| Error::Format {
            line: i + 1,
            message,
        };
        let (path, v) = if manifest {
            let f: Vec<&str> = line.split(',').collect();
            let [_, input, property, verdict] = f[..] else {
                return Err(bad(format!("expected the 4 fields `{MANIFEST}`")));
            };
            if property.trim() != "unreach-call" {
                continue;
            }
            let fails = match verdict.trim() {
                "false" => "1",
                "true" => "0",
                other => {
                    let other = crate::text::excerpt(other);
                    return Err(bad(format!("expected true or false, found `{other}`")));
                }
            };
            (input, fails)
        } else {
            line.rsplit_once(',')
                .ok_or_else(|| bad("expected `path,0|1`".into()))?
        };
        let v = match v.trim() {
            "1" => true,
            "0" => false,
            other => {
                let other = crate::text::excerpt(other);
                return Err(bad(format!("expected 0 or 1, found `{other}`")));
            }
        };
        let name = Path::new(path.trim())
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if name.is_empty() {
            return Err(bad("no test file named before the `,`".into()));
        }
        if let Some(&first) = lines.get(&name) {
            return Err(bad(format!(
                "`{}` is listed twice: lines {first} and {} (one row a test)",
                crate::text::excerpt(&name),
                i + 1
            )));
        }
        lines.insert(name.clone(), i + 1);
        want.insert(name, v);
    }
    Ok(want)
}

/// One test's result.
#[derive(Clone, Debug)]
pub struct Row {
    pub test: String,
    /// The verdict asked: whether an assertion fails (a C program), not whether the
    /// final condition holds (a litmus test).
    pub assertion: bool,
    /// Why the test could not be explored (a parse error, a witness that failed its check).
    pub error: Option<String>,
    pub holds: Option<bool>,
    pub expected: Option<bool>,
    pub outcomes: usize,
    pub states: usize,
    pub robust: Option<bool>,
    pub ms: f64,
    /// What the `herd` hook of [`run`] made of the test (herd7's report), when given;
    /// Err says why not.
    pub herd: Option<Result<String, Unfinished>>,
}

impl Row {
    /// Some(true) when the verdict matches the expectation (None: either is missing).
    pub fn matches(&self) -> Option<bool> {
        Some(self.holds? == self.expected?)
    }
}

/// The whole suite's results, in file order.
#[derive(Clone, Debug)]
pub struct Summary {
    pub rows: Vec<Row>,
    pub with_expectations: bool,
    pub seconds: f64,
}

impl Summary {
    pub fn errors(&self) -> usize {
        self.rows.iter().filter(|r| r.error.is_some()).count()
    }
    pub fn mismatches(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.matches() == Some(false))
            .count()
    }
    pub fn unknown(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.error.is_none() && r.holds.is_none())
            .count()
    }
    /// Explored tests the CSV does not list.
    pub fn without_expectation(&self) -> usize {
        if !self.with_expectations {
            return 0;
        }
        self.rows
            .iter()
            .filter(|r| r.error.is_none() && r.expected.is_none())
            .count()
    }
    pub fn not_robust(&self) -> usize {
        self.rows.iter().filter(|r| r.robust == Some(false)).count()
    }
}

/// What a row keeps of a test explored: from the program, its exploration and the
/// seconds it took, a report (herd7's) or why there is none.
pub type Herd = dyn Fn(&Program, &Exploration, f64) -> Result<String, Unfinished> + Sync;

/// The exploration stopped at a bound: herd's format, which has no *unknown*, cannot
/// report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the exploration did not finish within its bounds: herd's format cannot say unknown")]
pub struct Unfinished;

/// The files `suite` explores.
const EXTENSIONS: [&str; 3] = ["litmus", "c", "i"];

/// Explores every `.litmus`, `.c` and `.i` file of `dir` under `o`, C files read with
/// `read`; with `herd`, each row keeps what it makes of its test.
pub fn run(
    dir: &Path,
    read: &ReadOptions,
    o: Options,
    expected: Option<&Expected>,
    herd: Option<&Herd>,
) -> std::io::Result<Summary> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no `.litmus`, `.c` or `.i` tests in it",
        ));
    }
    if let Some(want) = expected {
        let have: std::collections::HashSet<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().to_string()))
            .collect();
        let mut missing: Vec<&String> = want.keys().filter(|k| !have.contains(*k)).collect();
        missing.sort();
        if !missing.is_empty() {
            let shown: Vec<String> = missing
                .iter()
                .take(5)
                .map(|m| crate::text::excerpt(m))
                .collect();
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "the expected verdicts name {} test{} not in it: {}{}",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" },
                    shown.join(", "),
                    if missing.len() > 5 { ", …" } else { "" }
                ),
            ));
        }
    }
    let started = std::time::Instant::now();
    let rows = files
        .par_iter()
        .map(|f| {
            let test = f.file_name().unwrap().to_string_lossy().to_string();
            let t0 = std::time::Instant::now();
            let mut row = Row {
                expected: expected.and_then(|w| w.get(&test).copied()),
                assertion: f.extension().is_none_or(|e| e != "litmus"),
                test,
                error: None,
                holds: None,
                outcomes: 0,
                states: 0,
                robust: None,
                ms: 0.0,
                herd: None,
            };
            // A named pipe or device would block the read: only regular files.
            let regular = std::fs::metadata(f).is_ok_and(|m| m.is_file());
            let program = if regular {
                read_program_with(f, read).map_err(|e| e.to_string())
            } else {
                Err(format!("{}: not a regular file", f.display()))
            };
            match program {
                Err(e) => row.error = Some(e),
                Ok(p) => match explore_one(&p, o) {
                    Err(e) => row.error = Some(e.to_string()),
                    Ok(r) => {
                        row.holds = match row.assertion {
                            false => r.exploration.condition(&p),
                            true => assertion_fails(&r.exploration),
                        };
                        row.outcomes = r.exploration.outcomes.len();
                        row.states = r.exploration.states;
                        // As explore says it: unknown when searched over cut runs.
                        row.robust = r.robust();
                        if let Some(herd) = herd {
                            let secs = t0.elapsed().as_secs_f64();
                            row.herd = Some(herd(&p, &r.exploration, secs));
                        }
                    }
                },
            }
            row.ms = t0.elapsed().as_secs_f64() * 1e3;
            row
        })
        .collect();
    Ok(Summary {
        rows,
        with_expectations: expected.is_some(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Whether an assertion fails: yes when one does, no when every run was explored with
/// no bound or nondet range cut, else unknown.
fn assertion_fails(e: &Exploration) -> Option<bool> {
    if e.failure.is_some() {
        Some(true)
    } else if e.complete && e.bound == 0 && e.nondet_cut.is_none() {
        Some(false)
    } else {
        None
    }
}
