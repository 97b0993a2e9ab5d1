//! The records file: JSON lines, a header naming the matrix, then one record per run.
//! Appended one whole line at a time, so an interrupted experiment resumes where it
//! stopped: a torn last line is dropped (its run is done again), every complete record
//! is kept and its run skipped. The file is locked while open: one process per file.

use super::config::Config;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;
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

/// Reads a records file: its header and its complete records (a torn last line is
/// left out). Errors name the line.
pub fn read(path: &Path) -> Result<(Header, Vec<Record>), crate::FileError> {
    let file = path.display().to_string();
    let fe = |error| crate::FileError {
        file: file.clone(),
        error,
    };
    let bytes = std::fs::read(path).map_err(|e| fe(Error::Io(e)))?;
    parse(complete_lines(&bytes).map_err(fe)?).map_err(fe)
}

/// The ids recorded in `path` for `header`'s matrix (none if there is no file), read
/// without creating, locking or mending it.
pub fn done_ids(path: &Path, header: &Header) -> Result<HashSet<String>, crate::FileError> {
    if !path.exists() {
        return Ok(HashSet::new());
    }
    let (old, records) = read(path)?;
    same_matrix(&old, header).map_err(|error| crate::FileError {
        file: path.display().to_string(),
        error,
    })?;
    Ok(records.into_iter().map(|r| r.id).collect())
}

/// Parses a records file's text: its header and complete records.
pub fn parse_records(text: &str) -> Result<(Header, Vec<Record>), Error> {
    parse(complete_lines(text.as_bytes())?)
}

/// The complete lines of a records file: a torn last line, even one cut inside a
/// character, is not a record.
fn complete_lines(bytes: &[u8]) -> Result<&str, Error> {
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    std::str::from_utf8(&bytes[..complete]).map_err(|e| Error::Format {
        line: 0,
        message: format!("not UTF-8 text: {e}"),
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
    for (i, line) in lines {
        let r: Record =
            serde_json::from_str(line).map_err(|e| bad(i + 1, format!("not a run record: {e}")))?;
        if r.schema != RECORD_SCHEMA {
            return Err(bad(
                i + 1,
                format!("schema `{}`, expected `{RECORD_SCHEMA}`", r.schema),
            ));
        }
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
    /// of the same matrix (dropping a torn last line); refuses another matrix's file,
    /// and a file another process has open for the same purpose (a lock: one records
    /// file per shard).
    pub fn open(path: &Path, header: &Header) -> Result<Records, crate::FileError> {
        use std::os::unix::io::AsRawFd;
        let file_name = path.display().to_string();
        let fe = |error| crate::FileError {
            file: file_name.clone(),
            error,
        };
        let io = |e| fe(Error::Io(e));
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(fe(Error::Format {
                line: 0,
                message: "another process is writing these records (one records file per shard)"
                    .into(),
            }));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut bytes).map_err(io)?;
        let text = complete_lines(&bytes).map_err(fe)?;
        let mut done = HashSet::new();
        if text.is_empty() {
            // New, empty, or only a torn header: start afresh.
            f.set_len(0).map_err(io)?;
            let line = serde_json::to_string(header).expect("a header serialises") + "\n";
            f.write_all(line.as_bytes()).map_err(io)?;
        } else {
            let (old, records) = parse(text).map_err(fe)?;
            same_matrix(&old, header).map_err(fe)?;
            done.extend(records.into_iter().map(|r| r.id));
            // Drop a torn last line.
            f.set_len(text.len() as u64).map_err(io)?;
        }
        let len = f.metadata().map_err(io)?.len();
        Ok(Records {
            path: path.to_path_buf(),
            file: f,
            len,
            done,
        })
    }

    /// Appends one record as one line.
    /// On failure the file is cut back to its last complete record.
    pub fn append(&mut self, r: &Record) -> std::io::Result<()> {
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
