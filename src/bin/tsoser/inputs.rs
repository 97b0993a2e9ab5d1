//! The inputs of `check`, `monitor` and `graph`: files, directories (their traces,
//! recursively) and `-` (standard input); and the batch of several inputs — run in
//! parallel, one line (or JSON line) per file in input order, a summary, the worst
//! exit code.

use crate::out::{self, warn, INTERNAL, OK, UNKNOWN, USAGE, VIOLATION};
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The extensions of trace files in a directory.
const TRACE_EXTENSIONS: [&str; 3] = ["yaml", "yml", "std"];

/// The inputs named on the command line.
pub(crate) struct Inputs {
    /// The files to read, in order (`-`: standard input).
    pub(crate) files: Vec<PathBuf>,
    /// Exactly one argument, not a directory: the single-file output.
    pub(crate) single: bool,
    /// Arguments that gave no file (a missing path, a directory without traces).
    pub(crate) errors: Vec<String>,
}

/// Expands the arguments: a directory becomes its trace files (`.yaml`, `.yml`,
/// `.std`, recursively, sorted); `-` is standard input (at most once).
pub(crate) fn expand(args: &[PathBuf]) -> Result<Inputs> {
    expand_with(args, &TRACE_EXTENSIONS, "trace file (.yaml, .yml, .std)")
}

/// [`expand`] with the files of a directory named by their extensions (`what` names
/// them in the error of a directory without any).
pub(crate) fn expand_with(args: &[PathBuf], extensions: &[&str], what: &str) -> Result<Inputs> {
    let stdin = |a: &PathBuf| a.as_path() == Path::new("-");
    if args.iter().filter(|a| stdin(a)).count() > 1 {
        bail!("`-` (standard input) can be named once");
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for a in args {
        if !stdin(a) && a.is_dir() {
            let before = files.len();
            walk(a, extensions, &mut files, &mut errors);
            if files.len() == before {
                errors.push(format!("{}: no {what} in the directory", a.display()));
            }
        } else {
            files.push(a.clone());
        }
    }
    let single = args.len() == 1 && files.len() == 1 && errors.is_empty() && !args[0].is_dir();
    Ok(Inputs {
        files,
        single,
        errors,
    })
}

/// The files of `dir` with one of `extensions`, recursively, in name order; a
/// subdirectory that cannot be read is an error and the walk goes on. Symbolic links to
/// directories are not followed (no loops); links to files are taken.
fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd.collect::<std::io::Result<Vec<_>>>(),
        Err(e) => Err(e),
    };
    let mut entries = match entries {
        Ok(v) => v,
        Err(e) => {
            errors.push(format!("{}: cannot read the directory: {e}", dir.display()));
            return;
        }
    };
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            walk(&p, extensions, out, errors);
        } else if p.is_file()
            && p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        {
            out.push(p);
        }
    }
}

/// The outcome of one file of a batch.
pub(crate) struct FileOutcome {
    /// The exit code the file alone would give.
    pub(crate) code: u8,
    /// Its line of text (without the newline), or its JSON record.
    pub(crate) text: Record,
}

/// A file's line of a batch, held until the lines before it are printed.
pub(crate) enum Record {
    Line(String),
    /// A JSON record, in memory up to [`SPOOL_IN_MEMORY`] bytes; a longer one (a whole
    /// witness of a large trace: 1.6 GB at 10⁷ events) waits in a temporary file.
    Spooled(tempfile::SpooledTempFile),
}

/// The bytes of a record a batch holds in memory before it spills to a temporary file.
pub(crate) const SPOOL_IN_MEMORY: usize = 8 << 20;

impl From<String> for Record {
    fn from(s: String) -> Record {
        Record::Line(s)
    }
}

impl Record {
    /// `v` as one JSON line, written as it is made (spilled past [`SPOOL_IN_MEMORY`]);
    /// held whole in memory if the temporary file fails. `Err`: `v` does not serialize.
    pub(crate) fn json(v: &(impl serde::Serialize + ?Sized)) -> serde_json::Result<Record> {
        let mut spool = tempfile::spooled_tempfile(SPOOL_IN_MEMORY);
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut spool);
        let written = serde_json::to_writer(&mut w, v).and_then(|()| {
            w.into_inner()
                .map(drop)
                .map_err(|e| serde_json::Error::io(e.into_error()))
        });
        match written {
            Ok(()) => Ok(Record::Spooled(spool)),
            Err(e) if e.is_io() => serde_json::to_string(v).map(Record::Line),
            Err(e) => Err(e),
        }
    }

    /// Writes the record and its newline to `out`.
    pub(crate) fn write_to(self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        use std::io::Seek;
        match self {
            Record::Line(s) => out.write_all(s.as_bytes())?,
            Record::Spooled(mut spool) => {
                spool.rewind()?;
                std::io::copy(&mut spool, out)?;
            }
        }
        out.write_all(b"\n")
    }
}

/// How bad an exit code is: internal error, input error, violation, unknown, ok.
fn severity(code: u8) -> u8 {
    match code {
        INTERNAL => 4,
        USAGE => 3,
        VIOLATION => 2,
        UNKNOWN => 1,
        _ => 0,
    }
}

/// The worst of two exit codes ([`severity`]).
pub(crate) fn worst(a: u8, b: u8) -> u8 {
    if severity(b) > severity(a) {
        b
    } else {
        a
    }
}

/// Runs `one` on every file in parallel, printing each outcome in input order as soon
/// as those before it are printed, then the summary (text, or one JSON line with
/// `json`); the exit code is the worst of the files' and of the argument errors'.
pub(crate) fn batch(
    inputs: &Inputs,
    json: bool,
    one: impl Fn(&Path) -> FileOutcome + Sync,
) -> Result<u8> {
    for e in &inputs.errors {
        warn(&format!("tsoser: {e}"));
    }
    // Outcomes that arrived before their predecessors, and the next index to print.
    let pending: Mutex<(usize, BTreeMap<usize, FileOutcome>)> = Mutex::new((0, BTreeMap::new()));
    // Files by severity of their exit code, and the worst code.
    let counts = Mutex::new(([0usize; 5], OK));
    let started = std::time::Instant::now();
    on_workers(inputs.files.len(), |i| {
        let f = &inputs.files[i];
        // A panic is a bug: that file's outcome is an internal error (exit 4), the
        // others are still checked.
        let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| one(f))).unwrap_or_else(
            |_| {
                let e =
                    anyhow::anyhow!("internal error: the check panicked; please report this file");
                error_outcome(f, &e, json, INTERNAL)
            },
        );
        {
            let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
            c.0[usize::from(severity(o.code))] += 1;
            c.1 = worst(c.1, o.code);
        }
        let mut p = pending.lock().unwrap_or_else(|p| p.into_inner());
        p.1.insert(i, o);
        while let Some(o) = {
            let next = p.0;
            p.1.remove(&next)
        } {
            out::emit_record(o.text);
            p.0 += 1;
        }
    });
    let (c, mut code) = counts.into_inner().unwrap_or_else(|p| p.into_inner());
    if !inputs.errors.is_empty() {
        code = worst(code, USAGE);
    }
    let seconds = started.elapsed().as_secs_f64();
    let (ok, unknown, violation, input, internal) = (c[0], c[1], c[2], c[3], c[4]);
    let input = input + inputs.errors.len();
    if json {
        let summary = tsoser::output::json::BatchSummary {
            schema: tsoser::output::json::schema(),
            summary: tsoser::output::json::BatchCounts {
                files: inputs.files.len(),
                ok,
                violation,
                unknown,
                input_errors: input,
                internal_errors: internal,
                seconds,
                exit: code,
            },
        };
        out::emit(&format!("{}\n", serde_json::to_string(&summary)?));
    } else {
        outln!(
            "{} files: {ok} ok, {violation} violation, {unknown} unknown, {input} input error{}, {internal} internal error{} ({seconds:.2} s; exit {code})",
            inputs.files.len(),
            if input == 1 { "" } else { "s" },
            if internal == 1 { "" } else { "s" },
        );
    }
    Ok(code)
}

/// `each(i)` for every `i < n`, one at a time per core, on plain threads taking the
/// next index (rayon's pool would let a worker waiting on a decider's own pool start
/// the next item on its stack).
fn on_workers(n: usize, each: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(n)
        .max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                each(i);
            });
        }
    });
}

/// `f` on every file ([`on_workers`]), results in input order; a panic is `None` (a
/// bug: the caller reports it as an internal error).
pub(crate) fn map_files<T: Send>(
    files: &[PathBuf],
    f: impl Fn(&Path) -> T + Sync,
) -> Vec<Option<T>> {
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..files.len()).map(|_| None).collect());
    on_workers(files.len(), |i| {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&files[i]))).ok();
        out.lock().unwrap_or_else(|p| p.into_inner())[i] = r;
    });
    out.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// The one line of a file answered without a report: `verdict` (`unknown`, `error`,
/// `internal error`) and why, as text or a JSON record with its exit code.
pub(crate) fn short_outcome(
    file: &Path,
    verdict: &str,
    reason: &str,
    json: bool,
    code: u8,
) -> FileOutcome {
    let text = if json {
        serde_json::json!({
            "schema": tsoser::output::json::schema(),
            "file": file.display().to_string(),
            "verdict": verdict,
            "reason": reason,
            "exit": code,
        })
        .to_string()
    } else {
        format!("{}: {verdict} — {reason}", file.display())
    };
    FileOutcome {
        code,
        text: text.into(),
    }
}

/// The one line of a file that could not be read or checked.
pub(crate) fn error_outcome(file: &Path, e: &anyhow::Error, json: bool, code: u8) -> FileOutcome {
    short_outcome(
        file,
        "error",
        &tsoser::text::message(&format!("{e:#}")),
        json,
        code,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record past [`SPOOL_IN_MEMORY`] waits in a file, not in memory, and is
    /// written back as the JSON line it would have been.
    #[test]
    fn a_large_record_is_spilled_and_written_back_whole() {
        let big: Vec<String> = (0..600_000).map(|i| format!("item number {i}")).collect();
        let want = serde_json::to_string(&big).unwrap();
        assert!(want.len() > SPOOL_IN_MEMORY);
        let r = Record::json(&big).unwrap();
        assert!(matches!(&r, Record::Spooled(s) if s.is_rolled()));
        let mut out = Vec::new();
        r.write_to(&mut out).unwrap();
        assert_eq!(out, format!("{want}\n").into_bytes());
        let small = Record::json(&big[..3]).unwrap();
        assert!(matches!(&small, Record::Spooled(s) if !s.is_rolled()));
        let mut out = Vec::new();
        small.write_to(&mut out).unwrap();
        assert_eq!(
            out,
            format!("{}\n", serde_json::to_string(&big[..3]).unwrap()).into_bytes()
        );
    }
}
