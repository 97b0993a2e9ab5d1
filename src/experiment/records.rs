//! The records file: JSON lines, a header naming the matrix, then one record per run.
//! Appended one whole line at a time, so an interrupted experiment resumes where it
//! stopped: a torn last record is dropped (its run is done again), every complete
//! record is kept and its run skipped; a run is recorded once. A file that is not
//! this matrix's records is never written. The file is locked while open: one
//! process per file.

use super::config::Config;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `schema` of the header line.
pub const HEADER_SCHEMA: &str = "tsoser-experiment/1";
/// `schema` of a run's line.
pub const RECORD_SCHEMA: &str = "tsoser-experiment-run/1";

/// The first line: which matrix the records belong to.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    pub schema: String,
    /// Hash of the declaration (FNV-1a, 64 bits, hex): records of another matrix are
    /// refused, not mixed.
    pub matrix: String,
    pub runs: usize,
    pub config: Config,
}

impl Header {
    pub fn new(config: &Config, runs: usize) -> Header {
        Header {
            schema: HEADER_SCHEMA.into(),
            matrix: matrix_hash(config),
            runs,
            config: config.clone(),
        }
    }

    /// The header's line, as written (with its newline).
    fn line(&self) -> String {
        serde_json::to_string(self).expect("a header serialises") + "\n"
    }
}

/// One run's outcome.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub schema: String,
    pub id: String,
    pub family: String,
    pub params: Value,
    pub decider: String,
    pub semantics: String,
    /// `serializable`, `violation`, `unknown`, or `error` (input or internal error).
    pub verdict: String,
    /// Why an *unknown* or an *error* is one.
    pub reason: Option<String>,
    /// The process's exit code (`None`: killed by a signal).
    pub exit: Option<i32>,
    /// Wall time of the run (the whole process: parsing included), seconds.
    pub seconds: f64,
    /// The decider's own time (`check --stats`'s `decide`: everything after parsing),
    /// seconds; `None` when the run did not answer with its statistics.
    #[serde(default)]
    pub decide_seconds: Option<f64>,
    /// Peak resident memory of the run's process, MiB (from the kernel's accounting).
    pub peak_mib: Option<f64>,
    /// Worker threads the run was given.
    pub jobs: usize,
    /// The trace's events and threads (as `check` read it).
    #[serde(default)]
    pub events: Option<u64>,
    #[serde(default)]
    pub threads: Option<u64>,
    /// The decider's counters (`check --stats`: solver calls, conflicts, cuts, jumps…).
    pub counts: Value,
}

impl Record {
    /// Whether the run answered (a verdict, not *unknown* or an error).
    pub fn answered(&self) -> bool {
        matches!(self.verdict.as_str(), "serializable" | "violation")
    }
}

/// The matrix's identity: FNV-1a over the declaration's canonical JSON.
pub fn matrix_hash(config: &Config) -> String {
    let text = serde_json::to_string(config).expect("a config serialises");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Reads a records file: its header and its complete records (a torn last record is
/// left out). Errors name the line.
pub fn read(path: &Path) -> Result<(Header, Vec<Record>), crate::FileError> {
    let file = path.display().to_string();
    let fe = |error| crate::FileError {
        file: file.clone(),
        error,
    };
    regular_file(path).map_err(fe)?;
    let bytes = std::fs::read(path).map_err(|e| fe(Error::Io(e)))?;
    let complete = complete_lines(&bytes).map_err(fe)?;
    let (header, records) = parse(complete).map_err(fe)?;
    torn_tail(&bytes[complete.len()..], complete.lines().count() + 1).map_err(fe)?;
    Ok((header, records))
}

/// The ids recorded in `path` for `header`'s matrix (none if there is no file, or an
/// empty one), read without creating, locking or mending it; refuses what
/// [`Records::open`] refuses.
pub fn done_ids(path: &Path, header: &Header) -> Result<HashSet<String>, crate::FileError> {
    let fe = |error| crate::FileError {
        file: path.display().to_string(),
        error,
    };
    if !path.exists() {
        return Ok(HashSet::new());
    }
    regular_file(path).map_err(fe)?;
    let bytes = std::fs::read(path).map_err(|e| fe(Error::Io(e)))?;
    Ok(match existing(&bytes, header).map_err(fe)? {
        Existing::Fresh => HashSet::new(),
        Existing::Resume { done, .. } => done,
    })
}

/// Parses a records file's text: its header and complete records.
pub fn parse_records(text: &str) -> Result<(Header, Vec<Record>), Error> {
    parse(complete_lines(text.as_bytes())?)
}

/// The complete lines of a records file: a torn last line, even one cut inside a
/// character, is not a record.
fn complete_lines(bytes: &[u8]) -> Result<&str, Error> {
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    std::str::from_utf8(&bytes[..complete]).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        Error::Format {
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
            message: format!("not UTF-8 text: {e}"),
        }
    })
}

/// The start of every record's line (serde writes the fields in their order).
const RECORD_START: &str = "{\"schema\":\"tsoser-experiment-run/1\"";

/// A torn last line (line `line`, without its newline) may only be a record cut short
/// by an interruption: anything else is not these records', and is not dropped.
fn torn_tail(tail: &[u8], line: usize) -> Result<(), Error> {
    let start = RECORD_START.as_bytes();
    if tail.is_empty() || tail.starts_with(start) || start.starts_with(tail) {
        return Ok(());
    }
    Err(Error::Format {
        line,
        message: format!(
            "the last line `{}` (without a newline) is not a run record",
            crate::text::excerpt(&String::from_utf8_lossy(tail))
        ),
    })
}

/// A records file must be a regular file (it is truncated, locked and appended to).
fn regular_file(path: &Path) -> Result<(), Error> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(Error::Format {
            line: 0,
            message: "not a regular file: records go to a file".into(),
        }),
        _ => Ok(()),
    }
}

/// What a records file already holds, for `header`'s matrix.
enum Existing {
    /// Nothing: empty, or only a torn header of this matrix.
    Fresh,
    /// Records of this matrix: `keep` bytes of complete lines (a torn record after
    /// them is dropped) and the runs they record.
    Resume { keep: usize, done: HashSet<String> },
}

/// Reads `bytes` as `header`'s records. Anything else — another matrix's records, a
/// file that is not records (whether or not it ends with a newline) — is an error, so
/// that no file is overwritten that is not this matrix's records.
fn existing(bytes: &[u8], header: &Header) -> Result<Existing, Error> {
    let text = complete_lines(bytes)?;
    if text.is_empty() {
        if header.line().as_bytes().starts_with(bytes) {
            return Ok(Existing::Fresh);
        }
        return Err(Error::Format {
            line: 1,
            message: format!(
                "`{}` is not a records file (nor the torn header of this matrix's): \
not overwritten; use another file",
                crate::text::excerpt(&String::from_utf8_lossy(bytes))
            ),
        });
    }
    let (old, records) = parse(text)?;
    same_matrix(&old, header)?;
    torn_tail(&bytes[text.len()..], text.lines().count() + 1)?;
    Ok(Existing::Resume {
        keep: text.len(),
        done: records.into_iter().map(|r| r.id).collect(),
    })
}

/// Records of `old`'s matrix may be added to only by the same matrix.
fn same_matrix(old: &Header, header: &Header) -> Result<(), Error> {
    if old.matrix == header.matrix {
        return Ok(());
    }
    Err(Error::Format {
        line: 1,
        message: format!(
            "these records belong to another matrix ({}, this one is {}): use another file",
            old.matrix, header.matrix
        ),
    })
}

/// Header and records of complete lines.
fn parse(text: &str) -> Result<(Header, Vec<Record>), Error> {
    let mut lines = text.lines().enumerate();
    let bad = |line: usize, message: String| Error::Format { line, message };
    let Some((_, first)) = lines.next() else {
        return Err(bad(1, "no header line: not a records file".into()));
    };
    let header: Header = serde_json::from_str(first)
        .ok()
        .filter(|h: &Header| h.schema == HEADER_SCHEMA)
        .ok_or_else(|| {
            bad(
                1,
                format!("not a `{HEADER_SCHEMA}` header: not a records file"),
            )
        })?;
    let mut records = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines {
        let r: Record =
            serde_json::from_str(line).map_err(|e| bad(i + 1, format!("not a run record: {e}")))?;
        if r.schema != RECORD_SCHEMA {
            return Err(bad(
                i + 1,
                format!("schema `{}`, expected `{RECORD_SCHEMA}`", r.schema),
            ));
        }
        if let Some(&first) = first_line.get(&r.id) {
            return Err(bad(
                i + 1,
                format!(
                    "run `{}` is recorded twice: lines {first} and {}",
                    crate::text::excerpt(&r.id),
                    i + 1
                ),
            ));
        }
        first_line.insert(r.id.clone(), i + 1);
        records.push(r);
    }
    Ok((header, records))
}

/// A records file open for appending.
pub struct Records {
    path: PathBuf,
    file: std::fs::File,
    /// Length of the complete records.
    len: u64,
    /// Ids of the runs already recorded.
    pub done: HashSet<String>,
}

impl Records {
    /// Opens `path` for `header`'s matrix: creates it, or resumes it if it holds records
    /// of the same matrix (dropping a torn last record). Refuses, and leaves untouched,
    /// anything else: another matrix's records, a file that is not records, one that
    /// names a run twice, and a file another process has open for the same purpose (a
    /// lock: one records file per shard).
    pub fn open(path: &Path, header: &Header) -> Result<Records, crate::FileError> {
        use std::os::unix::io::AsRawFd;
        let file_name = path.display().to_string();
        let fe = |error| crate::FileError {
            file: file_name.clone(),
            error,
        };
        regular_file(path).map_err(fe)?;
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| fe(Error::Write(e)))?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(fe(Error::Format {
                line: 0,
                message: "another process is writing these records (one records file per shard)"
                    .into(),
            }));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut bytes).map_err(|e| fe(Error::Io(e)))?;
        let write = |e| fe(Error::Write(e));
        let done = match existing(&bytes, header).map_err(fe)? {
            Existing::Fresh => {
                f.set_len(0).map_err(write)?;
                f.write_all(header.line().as_bytes()).map_err(write)?;
                HashSet::new()
            }
            Existing::Resume { keep, done } => {
                f.set_len(keep as u64).map_err(write)?;
                done
            }
        };
        let len = f.metadata().map_err(|e| fe(Error::Io(e)))?.len();
        Ok(Records {
            path: path.to_path_buf(),
            file: f,
            len,
            done,
        })
    }

    /// Appends one record as one line; a run already recorded is refused (one record
    /// a run). On failure the file is cut back to its last complete record.
    pub fn append(&mut self, r: &Record) -> std::io::Result<()> {
        if self.done.contains(&r.id) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("run `{}` is recorded already: not recorded twice", r.id),
            ));
        }
        let line = serde_json::to_string(r).expect("a record serialises") + "\n";
        if let Err(e) = self.file.write_all(line.as_bytes()) {
            let _ = self.file.set_len(self.len);
            return Err(e);
        }
        self.len += line.len() as u64;
        self.done.insert(r.id.clone());
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}
