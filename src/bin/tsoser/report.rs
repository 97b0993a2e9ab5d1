//! `tsoser report`.

use crate::args::ReportArgs;
use crate::out::{self, warn};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use tsoser::experiment::Header;

/// `tsoser report`: records (of one matrix; shards combine) to table.csv and plots. A
/// run recorded twice, in one file or in two, is an input error naming both lines.
pub(crate) fn cmd_report(a: &ReportArgs) -> Result<u8> {
    let (files, dir) = (&a.records, a.output.as_path());
    let mut header: Option<Header> = None;
    let mut records: Vec<tsoser::experiment::Record> = Vec::new();
    // Each run's first record: its file and line.
    let mut seen: std::collections::HashMap<String, (&Path, usize)> = Default::default();
    for f in files {
        let (h, rs) = tsoser::experiment::records::read(f)?;
        if let Some(first) = &header {
            if first.matrix != h.matrix {
                bail!(
                    "{}:1: records of another matrix ({}, the first file's is {})",
                    f.display(),
                    h.matrix,
                    first.matrix
                );
            }
        }
        header.get_or_insert(h);
        for (i, r) in rs.into_iter().enumerate() {
            // The header is line 1; records follow one a line.
            let line = i + 2;
            if let Some((g, l)) = seen.insert(r.id.clone(), (f, line)) {
                bail!(
                    "{}:{line}: run `{}` is recorded twice: also at {}:{l} (keep one record a run)",
                    f.display(),
                    tsoser::text::excerpt(&r.id),
                    g.display()
                );
            }
            records.push(r);
        }
    }
    let header = header.expect("clap: at least one file");
    let (plots, skipped) = tsoser::experiment::report::svg_plots(&header, &records)
        .map_err(|e| anyhow::anyhow!("cannot draw the plots: {e}"))?;
    let exponents = tsoser::experiment::report::exponents(&records);
    let mut outputs = vec![(
        "table.csv".to_string(),
        tsoser::experiment::report::table(&records),
    )];
    if !exponents.is_empty() {
        outputs.push((
            "exponents.csv".into(),
            tsoser::experiment::report::exponents_csv(&exponents),
        ));
    }
    let n_plots = plots.len();
    outputs.extend(plots);
    let paths: Vec<PathBuf> = outputs.iter().map(|(name, _)| dir.join(name)).collect();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    for p in &paths {
        out::refuse_clobber(&[("-o", p)], &inputs)?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot write {}", dir.display()))?;
    for (p, (_, text)) in paths.iter().zip(&outputs) {
        std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    for why in &skipped {
        warn(&format!("report: no plot: {why}"));
    }
    // A summary per decider: answered, unknown, errors, median time of the answers.
    let mut by: std::collections::BTreeMap<&str, (usize, usize, usize, Vec<f64>)> =
        Default::default();
    for r in &records {
        let e = by.entry(&r.decider).or_default();
        if r.answered() {
            e.0 += 1;
            e.3.push(r.seconds);
        } else if r.verdict == "unknown" {
            e.1 += 1;
        } else {
            e.2 += 1;
        }
    }
    outln!(
        "{} of {} runs recorded (matrix {}, timeout {} s)",
        records.len(),
        header.runs,
        header.matrix,
        header.config.timeout
    );
    outln!("decider          answered  unknown  errors  median s (answered)");
    for (d, (a, u, e, mut ts)) in by {
        let med = if ts.is_empty() {
            "-".to_string()
        } else {
            format!("{:.3}", tsoser::experiment::report::median(&mut ts))
        };
        outln!("{d:<16} {a:>8} {u:>8} {e:>7}  {med}");
    }
    if !exponents.is_empty() {
        outln!("fitted exponent of time in the trace length (the decider's own time):");
        for e in &exponents {
            let unknown = if e.unknown > 0 {
                format!(" ({} unknown left out)", e.unknown)
            } else {
                String::new()
            };
            let params = if e.params.is_empty() {
                String::new()
            } else {
                format!(" {}", e.params)
            };
            outln!(
                "  {} {} ({}) k={}{params}: {:.2} over {} runs, {} lengths{unknown}",
                e.family,
                e.decider,
                e.semantics,
                e.threads,
                e.exponent,
                e.runs,
                e.lengths
            );
        }
    }
    let disagreements = tsoser::experiment::report::disagreements(&records);
    for d in &disagreements {
        let answers: Vec<String> = d.answers.iter().map(|(x, v)| format!("{x}: {v}")).collect();
        warn(&format!(
            "report: the deciders disagree on {} ({}): {}",
            d.trace,
            d.semantics,
            answers.join(", ")
        ));
    }
    warn(&format!(
        "report: table.csv{} and {} plots in {}",
        if exponents.is_empty() {
            ""
        } else {
            ", exponents.csv"
        },
        n_plots,
        dir.display()
    ));
    Ok(if disagreements.is_empty() {
        outln!("the deciders agree on every trace they answered");
        out::OK
    } else {
        outln!(
            "the deciders disagree on {} traces (a bug in one of them)",
            disagreements.len()
        );
        out::VIOLATION
    })
}
