//! `tsoser experiment`: a declared matrix of runs — trace families (generated or a
//! directory) × parameters × seeds × deciders (tsoser's, or external commands such as
//! clingo) × semantics — each run a child process
//! with a timeout and a memory limit, recorded as one JSON line so that an interrupted
//! experiment resumes where it stopped, and split deterministically into shards for
//! other runners; [`report`] turns the records into a table and plots.

pub mod config;
pub mod matrix;
pub mod records;
pub mod report;
pub mod runner;

pub use config::{Config, External, FamilyConfig};
pub use matrix::{expand, shard, Run};
pub use records::{Header, Record, Records};
pub use runner::{run_all, Limits};
