//! Output of the command line: standard output that survives a closed pipe, warnings
//! that survive a closed standard error, exit codes, and reading input files.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use tsoser::trace::{self, Trace};

/// Exit codes (README and docs/cli.md "Exit codes"): the command line's API.
pub(crate) const OK: u8 = 0;
pub(crate) const VIOLATION: u8 = 1;
pub(crate) const USAGE: u8 = 2;
pub(crate) const UNKNOWN: u8 = 3;
pub(crate) const INTERNAL: u8 = 4;

/// The exit code of a decider's verdict.
pub(crate) fn verdict_code(v: &tsoser::check::Verdict) -> u8 {
    use tsoser::check::Verdict;
    match v {
        Verdict::Serializable => OK,
        Verdict::Violation(_) => VIOLATION,
        Verdict::Unknown(_) => UNKNOWN,
    }
}

/// Set once standard output is a closed pipe: later output is dropped, and the exit
/// code stays the verdict's (`tsoser check … | head -1` must not turn 1 into 0).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to standard output. A closed pipe ends the output quietly; any other write
/// error is reported and ends the program with exit 2.
pub(crate) fn emit(s: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_all(s.as_bytes()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        warn(&format!("tsoser: cannot write output: {e}"));
        std::process::exit(USAGE as i32);
    }
}

/// [`emit`] of a batch's record ([`crate::inputs::Record`]), copied from its spool.
pub(crate) fn emit_record(r: crate::inputs::Record) {
    write_stdout(|w| r.write_to(w));
}

/// Runs `write` on buffered standard output and flushes it: a closed pipe ends the
/// output quietly (what is left in the buffer has nowhere to go); any other write
/// error is reported and ends the program with exit 2.
fn write_stdout(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock>) -> std::io::Result<()>,
) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut w).and_then(|()| w.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            drop(w.into_parts());
        }
        Err(e) => {
            warn(&format!("tsoser: cannot write output: {e}"));
            std::process::exit(USAGE as i32);
        }
    }
}

/// Flushes standard output (errors as in [`emit`]).
pub(crate) fn flush() {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().flush() {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            warn(&format!("tsoser: cannot write output: {e}"));
            std::process::exit(USAGE as i32);
        }
    }
}

/// Writes a line to standard error; a closed standard error is ignored (`eprintln!`
/// would panic).
pub(crate) fn warn(s: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// Writes to standard error without a newline (stats blocks).
pub(crate) fn warn_raw(s: &str) {
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

macro_rules! out {
    ($($t:tt)*) => { $crate::out::emit(&format!($($t)*)) };
}

macro_rules! outln {
    ($($t:tt)*) => { $crate::out::emit(&format!("{}\n", format_args!($($t)*))) };
}

/// Whether `a` and `b` name one file: the same device and inode when both exist (so a
/// hard link, a symbolic link, `./x` and `x` are caught), else the same canonical path.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        (Err(_), Err(_)) => canonical(a).is_some_and(|x| canonical(b) == Some(x)),
        _ => false,
    }
}

/// `p` made absolute through its directory (`p` itself need not exist).
fn canonical(p: &Path) -> Option<std::path::PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(dir.canonicalize().ok()?.join(p.file_name()?))
}

/// Refuses outputs (each with its flag) that name an input of the command (`-`, standard
/// input, is none) or each other: no output overwrites an input, nor another output.
/// Every command checks its output files here before writing any; a directory output
/// checks the files it is about to write in it.
pub(crate) fn refuse_clobber(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<()> {
    for (k, &(flag, out)) in outputs.iter().enumerate() {
        for &input in inputs {
            if input != Path::new("-") && same_file(out, input) {
                anyhow::bail!(
                    "{flag} {} is the input {}: not overwritten (name another file)",
                    out.display(),
                    input.display()
                );
            }
        }
        for &(other, o) in &outputs[..k] {
            if same_file(out, o) {
                anyhow::bail!(
                    "{other} {} and {flag} {} name one file: name two",
                    o.display(),
                    out.display()
                );
            }
        }
    }
    Ok(())
}

/// Writes `text` to `output`, or to standard output.
pub(crate) fn write_out(output: Option<&Path>, text: &str) -> Result<()> {
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display())),
        None => {
            emit(text);
            Ok(())
        }
    }
}

/// Trace file formats.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TraceFormat {
    /// tsoser's YAML (canonical or compact events).
    Yaml,
    /// RAPID's STD: `THREAD|OP(ARG)|LOC` lines.
    Std,
}

impl TraceFormat {
    /// By extension: `.std` is STD, anything else YAML.
    pub(crate) fn of(path: &Path) -> TraceFormat {
        if trace::is_std_file(path) {
            TraceFormat::Std
        } else {
            TraceFormat::Yaml
        }
    }
}

/// Reads a trace: RAPID's STD for a `.std` file, YAML otherwise.
pub(crate) fn load(path: &Path) -> Result<Trace> {
    load_on(path, 0)
}

/// [`load`] with an STD file's lines lexed on `lexers` threads.
pub(crate) fn load_on(path: &Path, lexers: usize) -> Result<Trace> {
    Ok(trace::read_file_on(path, lexers)?)
}

/// `--read-threads`: at most [`MAX_READ_THREADS`]; by default the cores left beside
/// `busy` threads for one file, none for several (they run in parallel already).
pub(crate) fn read_threads(given: Option<usize>, busy: usize, single: bool) -> Result<usize> {
    match given {
        Some(n) if n > MAX_READ_THREADS => {
            anyhow::bail!("--read-threads takes 0 to {MAX_READ_THREADS}")
        }
        Some(n) => Ok(n),
        None if single => Ok(trace::split::lexers(busy)),
        None => Ok(0),
    }
}

/// `--read-threads` at most.
pub(crate) const MAX_READ_THREADS: usize = 64;

pub(crate) fn read_as(path: &Path, format: TraceFormat) -> Result<Trace> {
    Ok(match format {
        TraceFormat::Yaml => trace::yaml::read_trace(path)?,
        TraceFormat::Std => trace::std_format::read_std(path)?,
    })
}

/// Writes one `--json` object as serde makes it, without holding it whole (a closed
/// pipe ends the output quietly, other write errors as in [`emit`]).
pub(crate) fn json_write(v: &impl serde::Serialize) -> Result<()> {
    write_stdout(|w| {
        serde_json::to_writer_pretty(&mut *w, v)?;
        w.write_all(b"\n")
    });
    Ok(())
}

/// Prints one `--json` object (the `tsoser::output::json` structs carry their `"schema"`).
pub(crate) fn json_out(v: serde_json::Value) -> Result<()> {
    emit(&format!("{}\n", serde_json::to_string_pretty(&v)?));
    Ok(())
}
