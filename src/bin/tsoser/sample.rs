//! `tsoser crosscheck --runs N`: the monitors and `check` on N random SC runs of each
//! program ([`tsoser::crosscheck::sample()`]), a table a program (or a JSON object).
//! Exit: 1 when the explorer finds a program robust under a model whose monitor
//! reported on one of its runs (a disagreement), else 3 when a sample stopped short or
//! a confirmation is unknown within its bounds, else 0; 2 for input errors, 4 for a
//! panic.

use crate::args::CrosscheckArgs;
use crate::inputs::{map_files, worst};
use crate::out::{self, warn, INTERNAL, OK, UNKNOWN, USAGE, VIOLATION};
use anyhow::{bail, Result};
use std::time::Duration;
use tsoser::crosscheck::{sample, SampleConfig, SampleReport};
use tsoser::monitor::Kind;
use tsoser::output::sample::{row_name, sample_text, SampleJson};

/// The most runs a program is sampled for.
const MAX_RUNS: usize = 10_000_000;

pub(crate) fn cmd_sample(a: &CrosscheckArgs, runs: usize) -> Result<u8> {
    if runs == 0 || runs > MAX_RUNS {
        bail!("--runs takes 1 to {MAX_RUNS}");
    }
    if a.model.is_some() {
        bail!("--runs asks every monitor; --model does not apply");
    }
    let inputs = crate::crosscheck::program_inputs(a)?;
    let config = SampleConfig {
        runs,
        seed: a.seed,
        unroll: a.unroll.unwrap_or(100),
        timeout: Duration::from_secs_f64(a.timeout),
        max_states: a.max_states,
        ..SampleConfig::default()
    };
    let mut code = if inputs.errors.is_empty() { OK } else { USAGE };
    let read = a.c.options(a.unroll);
    let results = map_files(&inputs.files, |f| {
        tsoser::program::read_program_with(f, &read)
            .map(|p| sample(&p, &config))
            .map_err(|e| tsoser::text::message(&e.to_string()))
    });
    for (r, f) in results.into_iter().zip(&inputs.files) {
        let name = f.display().to_string();
        let r = match r {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                code = worst(code, USAGE);
                warn(&format!("tsoser: {e}"));
                continue;
            }
            None => {
                code = worst(code, INTERNAL);
                warn(&format!(
                    "tsoser: {name}: internal error: the sample panicked; please report this program"
                ));
                continue;
            }
        };
        code = worst(code, exit_code(&name, runs, &r));
        if a.json {
            out::json_out(serde_json::to_value(SampleJson::of(
                &name, runs, a.seed, &r,
            ))?)?;
        } else {
            outln!("{}", sample_text(&name, runs, &r).trim_end());
        }
    }
    out::flush();
    Ok(code)
}

/// A program's exit code, with a warning for each disagreement.
fn exit_code(name: &str, asked: usize, r: &SampleReport) -> u8 {
    let mut code = if r.runs < asked { UNKNOWN } else { OK };
    for row in &r.rows {
        let weak = matches!(row.kind, Some(Kind::Sober | Kind::Tso | Kind::Pso));
        match (weak && row.violations > 0, row.confirmed) {
            (true, Some(false)) => {
                warn(&format!(
                    "tsoser: disagreement: {name}: {} reports on {} random SC runs, but the explorer finds the program robust (loop bound {})",
                    row_name(row),
                    row.violations,
                    row.jumps.unwrap_or(0)
                ));
                code = worst(code, VIOLATION);
            }
            (true, None) => code = worst(code, UNKNOWN),
            _ => {}
        }
    }
    code
}
