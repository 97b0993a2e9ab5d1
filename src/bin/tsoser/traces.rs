//! `tsoser gen` and `tsoser convert`.

use crate::args::ConvertArgs;
use crate::args::{GenArgs, GenFamily, OneTxn, Schedule};
use crate::out::{read_as, refuse_clobber, write_out, TraceFormat};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use tsoser::reduction::{sat_to_trace, Cnf};
use tsoser::trace::{self, gen};

/// The ranges `gen` accepts (beyond them a trace would not fit in memory anyway).
const MAX_THREADS: usize = 1 << 16;
const MAX_EVENTS: usize = 1_000_000_000;
const MAX_VARS: usize = 1 << 32;
const MAX_TXN_LEN: usize = 1 << 20;

pub(crate) fn cmd_gen(a: GenArgs) -> Result<u8> {
    if a.family == GenFamily::Sat {
        return gen_sat(&a);
    }
    if a.cnf.is_some()
        || a.random
        || a.clauses.is_some()
        || a.clause_len.is_some()
        || a.write_cnf.is_some()
        || a.one_txn.is_some()
    {
        bail!("--cnf, --random, --clauses, --clause-len, --write-cnf and --one-txn go with --family sat");
    }
    let vars = a.vars.unwrap_or(1000);
    if !(1..=MAX_THREADS).contains(&a.threads) {
        bail!("--threads takes 1 to {MAX_THREADS}");
    }
    if !(1..=MAX_VARS).contains(&vars) {
        bail!("--vars takes 1 to {MAX_VARS}");
    }
    if a.events > MAX_EVENTS {
        bail!("--events takes at most {MAX_EVENTS}");
    }
    if a.txn_len > MAX_TXN_LEN || a.fence_every > MAX_EVENTS {
        bail!("--txn-len takes at most {MAX_TXN_LEN}, --fence-every at most {MAX_EVENTS}");
    }
    if !(0.0..=1.0).contains(&(a.rmw + a.write)) || a.rmw < 0.0 || a.write < 0.0 {
        bail!("--rmw and --write are probabilities with rmw + write ≤ 1");
    }
    let shape = gen::Shape {
        events: a.events,
        threads: a.threads,
        vars,
        txn_len: a.txn_len,
        fence_every: a.fence_every,
        rmw: a.rmw,
        write: a.write,
        serial: a.schedule == Schedule::Serial,
        txn_fenced: a.txn_fenced,
        reads_first: a.reads_first,
    };
    let mut trace = gen::generate(&shape, a.seed);
    if a.pairs > 0 {
        trace = gen::pair_first(&trace, a.pairs);
    }
    let text = trace_text(&trace, output_format(a.output.as_deref()), "gen")?;
    write_out(a.output.as_deref(), &text)?;
    Ok(0)
}

/// The form an output file's name asks for: STD for `.std`, YAML otherwise and on
/// standard output (bug: gen_writes_std_to_a_std_file: `gen -o t.std` wrote YAML, which
/// `check t.std` then refused as STD).
fn output_format(output: Option<&Path>) -> TraceFormat {
    output.map_or(TraceFormat::Yaml, TraceFormat::of)
}

/// `trace` in `format`: compact YAML, or STD (which not every trace can be; `what`
/// names the trace in the error).
fn trace_text(trace: &tsoser::trace::Trace, format: TraceFormat, what: &str) -> Result<String> {
    Ok(match format {
        TraceFormat::Yaml => tsoser::trace::yaml::write(trace, tsoser::trace::yaml::Form::Compact),
        TraceFormat::Std => trace::std_format::to_std(trace)
            .map_err(|e| anyhow::anyhow!("{what}: cannot write STD: {e}"))?,
    })
}

/// The largest random formula `gen --family sat --random` draws.
const MAX_CLAUSES: usize = 10_000_000;

/// `gen --family sat`: the trace of a formula read or drawn (docs/hardness.md).
fn gen_sat(a: &GenArgs) -> Result<u8> {
    let cnf = match (&a.cnf, a.random) {
        (Some(path), false) => {
            if a.vars.is_some() || a.clauses.is_some() || a.clause_len.is_some() {
                bail!("--vars, --clauses and --clause-len go with --random, not --cnf");
            }
            Cnf::read(path)?
        }
        (None, true) => {
            let vars = a.vars.unwrap_or(10);
            if !(1..=cnf_max_vars()).contains(&vars) {
                bail!("--vars takes 1 to {} with --family sat", cnf_max_vars());
            }
            let k = a.clause_len.unwrap_or(3);
            if !(1..=vars).contains(&k) {
                bail!("--clause-len takes 1 to --vars ({vars})");
            }
            let clauses = match a.clauses {
                Some(c) if c > MAX_CLAUSES => bail!("--clauses takes at most {MAX_CLAUSES}"),
                Some(c) => c,
                None => {
                    let c = (4.26 * vars as f64).round() as usize;
                    if c > MAX_CLAUSES {
                        bail!("--vars {vars} asks for {c} clauses by default (4.26 per variable): at most {MAX_CLAUSES}; give --clauses");
                    }
                    c
                }
            };
            Cnf::random(vars as u32, clauses, k, a.seed)
        }
        _ => bail!("--family sat takes a formula: --cnf FILE or --random"),
    };
    let outputs: Vec<(&str, &Path)> = [("--write-cnf", &a.write_cnf), ("-o", &a.output)]
        .into_iter()
        .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
        .collect();
    let inputs: Vec<&Path> = a.cnf.iter().map(PathBuf::as_path).collect();
    refuse_clobber(&outputs, &inputs)?;
    if let Some(path) = &a.write_cnf {
        write_out(Some(path), &cnf.to_dimacs())?;
    }
    let r = sat_to_trace(&cnf);
    let trace = match a.one_txn {
        Some(at) => tsoser::reduction::one_transaction(&r, at == OneTxn::First),
        None => r.trace,
    };
    let text = trace_text(&trace, output_format(a.output.as_deref()), "gen")?;
    write_out(a.output.as_deref(), &text)?;
    Ok(0)
}

fn cnf_max_vars() -> usize {
    tsoser::cnf::MAX_VARS as usize
}

pub(crate) fn cmd_convert(a: &ConvertArgs) -> Result<u8> {
    let (file, from, to, output) = (a.file.as_path(), a.from, a.to, a.output.as_deref());
    if let Some(o) = output {
        refuse_clobber(&[("-o", o)], &[file])?;
    }
    let from = from.unwrap_or_else(|| TraceFormat::of(file));
    let trace = read_as(file, from)?;
    let to = to.unwrap_or_else(|| match output {
        Some(p) if p.extension().is_some() => TraceFormat::of(p),
        _ if from == TraceFormat::Std => TraceFormat::Yaml,
        _ => TraceFormat::Std,
    });
    let text = trace_text(&trace, to, &file.display().to_string())?;
    write_out(output, &text)?;
    Ok(0)
}
