//! `tsoser gen` and `tsoser convert`.

use crate::args::{GenArgs, Schedule};
use crate::out::{read_as, write_out, TraceFormat};
use anyhow::{bail, Result};
use std::path::Path;
use tsoser::trace::{self, gen};

/// The ranges `gen` accepts (beyond them a trace would not fit in memory anyway).
const MAX_THREADS: usize = 1 << 16;
const MAX_EVENTS: usize = 1_000_000_000;
const MAX_VARS: usize = 1 << 32;
const MAX_TXN_LEN: usize = 1 << 20;

pub(crate) fn cmd_gen(a: GenArgs) -> Result<u8> {
    if !(1..=MAX_THREADS).contains(&a.threads) {
        bail!("--threads takes 1 to {MAX_THREADS}");
    }
    if !(1..=MAX_VARS).contains(&a.vars) {
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
        vars: a.vars,
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
    let text = gen::to_compact_yaml(&trace);
    write_out(a.output.as_deref(), &text)?;
    Ok(0)
}

pub(crate) fn cmd_convert(
    file: &Path,
    from: Option<TraceFormat>,
    to: Option<TraceFormat>,
    output: Option<&Path>,
) -> Result<u8> {
    let from = from.unwrap_or_else(|| TraceFormat::of(file));
    let trace = read_as(file, from)?;
    let to = to.unwrap_or_else(|| match output {
        Some(p) if p.extension().is_some() => TraceFormat::of(p),
        _ if from == TraceFormat::Std => TraceFormat::Yaml,
        _ => TraceFormat::Std,
    });
    let text = match to {
        TraceFormat::Yaml => gen::to_compact_yaml(&trace),
        TraceFormat::Std => trace::std_format::to_std(&trace)
            .map_err(|e| anyhow::anyhow!("{}: cannot write STD: {e}", file.display()))?,
    };
    write_out(output, &text)?;
    Ok(0)
}
