//! `tsoser experiment`: the declaration (TOML or flags) checked into a matrix, the runs
//! not yet recorded run as child processes of this binary, with a progress bar.

use crate::args::BenchArgs;
use crate::args::ExperimentArgs;
use crate::out::{self, warn};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use tsoser::experiment::config::FamilyConfig;
use tsoser::experiment::{expand, run_all, shard, Config, Header, Limits, Records};

pub(crate) fn cmd_experiment(a: ExperimentArgs) -> Result<u8> {
    let matrix_flags: Vec<String> = family_flags(&a)
        .into_iter()
        .chain([
            ("deciders", !a.deciders.is_empty()),
            ("semantics", !a.semantics.is_empty()),
            ("timeout", a.timeout.is_some()),
            ("memory", a.memory.is_some()),
        ])
        .filter(|&(_, given)| given)
        .map(|(flag, _)| format!("--{flag}"))
        .collect();
    if a.config.is_some() && !matrix_flags.is_empty() {
        bail!(
            "{}: set in the declaration file, not beside it",
            matrix_flags.join(", ")
        );
    }
    let (config, base) = match &a.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let c = Config::parse(&text).map_err(|error| tsoser::FileError {
                file: path.display().to_string(),
                error,
            })?;
            (c, path.parent().map(Path::to_path_buf).unwrap_or_default())
        }
        None => (from_flags(&a)?, PathBuf::from(".")),
    };
    let all = expand(&config, &base).map_err(|error| tsoser::FileError {
        file: a
            .config
            .as_ref()
            .map_or("the flags".into(), |p| p.display().to_string()),
        error,
    })?;
    let total = all.len();
    let runs = match &a.shard {
        Some(s) => {
            let (i, n) = s
                .split_once('/')
                .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
                .filter(|&(i, n)| n >= 1 && (1..=n).contains(&i))
                .with_context(|| format!("--shard `{s}`: expected I/N with 1 ≤ I ≤ N"))?;
            shard(all, i, n)
        }
        None => all,
    };
    if a.parallel == 0 {
        bail!("--parallel takes 1 or more");
    }
    if a.traces_only {
        let dir = a
            .traces
            .as_deref()
            .expect("clap: --traces-only requires --traces");
        let mut keys = std::collections::HashSet::new();
        for r in runs.iter().filter(|r| keys.insert(r.key.clone())) {
            tsoser::experiment::runner::prepare(dir, r)?;
        }
        warn(&format!(
            "experiment: {} traces in {}",
            keys.len(),
            dir.display()
        ));
        return Ok(out::OK);
    }
    let output = a
        .output
        .clone()
        .expect("clap: --output unless --traces-only");
    // The records must not overwrite the declaration or a directory family's trace.
    let inputs: Vec<&Path> = a
        .config
        .iter()
        .map(PathBuf::as_path)
        .chain(runs.iter().filter_map(|r| match &r.source {
            tsoser::experiment::matrix::Source::File(p) => Some(p.as_path()),
            _ => None,
        }))
        .collect();
    out::refuse_clobber(&[("-o", &output)], &inputs)?;
    let header = Header::new(&config, total);
    if a.dry_run {
        // Read the records, if any, without creating, locking or mending the file.
        let done = tsoser::experiment::records::done_ids(&output, &header)?;
        let todo = runs.iter().filter(|r| !done.contains(&r.id));
        for r in todo.take(a.max_runs.unwrap_or(usize::MAX)) {
            outln!("{}", r.id);
        }
        return Ok(out::OK);
    }
    let mut records = Records::open(&output, &header)?;
    let todo: Vec<_> = runs
        .iter()
        .filter(|r| !records.done.contains(&r.id))
        .take(a.max_runs.unwrap_or(usize::MAX))
        .cloned()
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limits = Limits {
        timeout: config.timeout,
        memory_mib: config.memory,
        parallel: a.parallel,
        jobs_per_run: (cores / a.parallel).max(1),
        grace: tsoser::experiment::runner::GRACE,
    };
    warn(&format!(
        "experiment: {} runs in the matrix{}, {} recorded, {} to do now; {} at a time on {cores} cores ({} worker thread{} each{}); records: {}",
        total,
        a.shard.as_ref().map_or(String::new(), |s| format!(" (shard {s}: {})", runs.len())),
        runs.len() - runs.iter().filter(|r| !records.done.contains(&r.id)).count(),
        todo.len(),
        a.parallel,
        limits.jobs_per_run,
        if limits.jobs_per_run == 1 { "" } else { "s" },
        if a.parallel > cores { "; more runs than cores: timings share cores" } else { "" },
        output.display()
    ));
    let traces = a.traces.clone().unwrap_or_else(|| {
        let mut p = output.clone().into_os_string();
        p.push(".traces");
        PathBuf::from(p)
    });
    let program = std::env::current_exe().context("cannot find this program's path")?;
    let bar = ProgressBar::new(todo.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} runs, {elapsed_precise} elapsed, about {eta} left · {msg}",
        )
        .expect("a valid template"),
    );
    let (mut unknown, mut errors) = (0, 0);
    let done = run_all(&program, &todo, &traces, &limits, &mut records, |r| {
        unknown += usize::from(r.verdict == "unknown");
        errors += usize::from(r.verdict == "error");
        bar.set_message(format!("{}: {} in {:.2} s", r.id, r.verdict, r.seconds));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    warn(&format!(
        "experiment: {done} runs recorded ({unknown} unknown, {errors} errors) in {}",
        output.display()
    ));
    Ok(out::OK)
}

/// The family flags (without their `--`) and whether each was given.
fn family_flags(a: &ExperimentArgs) -> [(&'static str, bool); 10] {
    [
        ("write", !a.write.is_empty()),
        ("events", !a.events.is_empty()),
        ("threads", !a.threads.is_empty()),
        ("vars", !a.vars.is_empty()),
        ("txn-len", !a.txn_len.is_empty()),
        ("pairs", !a.pairs.is_empty()),
        ("seeds", a.seeds.is_some()),
        ("ratio", a.ratio.is_some()),
        ("clause-len", a.clause_len.is_some()),
        ("path", a.path.is_some()),
    ]
}

/// One family from the flags.
fn from_flags(a: &ExperimentArgs) -> Result<Config> {
    let name = a.family.as_deref().expect("clap: --family or a config");
    let need = |v: &Vec<usize>, flag: &str| -> Result<Vec<usize>> {
        if v.is_empty() {
            bail!("--family {name} needs --{flag}");
        }
        Ok(v.clone())
    };
    let applies: &[&str] = match name {
        "dense" => &[
            "events", "threads", "vars", "txn-len", "pairs", "write", "seeds",
        ],
        "blocks" => &["events", "threads", "seeds"],
        "serial" | "serial-fenced" | "random" => &["events", "threads", "vars", "seeds"],
        "sat" => &["vars", "ratio", "clause-len", "seeds"],
        "dir" => &["path"],
        _ => &[],
    };
    if !applies.is_empty() {
        let used = family_flags(a);
        if let Some((flag, _)) = used.iter().find(|(f, u)| *u && !applies.contains(f)) {
            bail!("--{flag} does not apply to --family {name}");
        }
    }
    let seeds = a.seeds.unwrap_or(1);
    let or = |v: &Vec<usize>, d: usize| if v.is_empty() { vec![d] } else { v.clone() };
    let family = match name {
        "dense" => FamilyConfig::Dense {
            events: need(&a.events, "events")?,
            threads: need(&a.threads, "threads")?,
            vars: or(&a.vars, 2),
            txn_len: or(&a.txn_len, 1),
            pairs: or(&a.pairs, 0),
            write: if a.write.is_empty() {
                vec![0.5]
            } else {
                a.write.clone()
            },
            seeds,
        },
        "blocks" => FamilyConfig::Blocks {
            events: need(&a.events, "events")?,
            threads: need(&a.threads, "threads")?,
            seeds,
        },
        "serial" | "serial-fenced" => FamilyConfig::Serial {
            events: need(&a.events, "events")?,
            threads: need(&a.threads, "threads")?,
            vars: or(&a.vars, 1000),
            fenced: name == "serial-fenced",
            seeds,
        },
        "random" => FamilyConfig::Random {
            events: need(&a.events, "events")?,
            threads: need(&a.threads, "threads")?,
            vars: or(&a.vars, 1000),
            seeds,
        },
        "sat" => FamilyConfig::Sat {
            vars: need(&a.vars, "vars")?,
            ratio: a.ratio.unwrap_or(4.26),
            clause_len: a.clause_len.unwrap_or(3),
            seeds,
        },
        "dir" => FamilyConfig::Dir {
            path: a.path.clone().context("--family dir needs --path")?,
        },
        other => bail!(
            "--family `{other}`: one of dense, blocks, serial, serial-fenced, random, sat, dir"
        ),
    };
    let c = Config {
        timeout: a.timeout.unwrap_or(60.0),
        memory: a.memory.unwrap_or(4096),
        deciders: if a.deciders.is_empty() {
            vec!["auto".into()]
        } else {
            a.deciders.clone()
        },
        semantics: if a.semantics.is_empty() {
            vec!["exact".into()]
        } else {
            a.semantics.clone()
        },
        families: vec![family],
        externals: Vec::new(),
    };
    c.check()?;
    Ok(c)
}

/// `tsoser bench …`: removed; says which `experiment` does the same.
pub(crate) fn cmd_bench_removed(a: &BenchArgs) -> Result<u8> {
    let rest = &a.rest;
    let how = match rest.first().map(String::as_str) {
        Some("dense") => {
            "`tsoser experiment --family dense --events N --threads 2,3,… \
--deciders auto,fpt,sat/cadical -o R.jsonl` (the flags --vars, --txn-len, --pairs, --write, \
--seeds, --timeout are as before; a thread range is a list)"
        }
        Some("scale") => {
            "`tsoser experiment --family serial|serial-fenced|random|blocks \
--events 1000,10000 --threads 2,3,4 --deciders fpt,sat/varisat -o R.jsonl`"
        }
        _ => "`tsoser experiment`",
    };
    bail!(
        "`bench` was folded into `experiment` (docs/cli.md, \"experiment\"): use {how}, then \
`tsoser report R.jsonl -o DIR` for the CSV table, the fitted exponents and the plots"
    )
}
