//! `tsoser suite`: a directory of litmus tests against expected verdicts.

use crate::args::{SuiteArgs, SuiteFormat};
use crate::explore::{config, engine};
use crate::out::{warn, OK, UNKNOWN, USAGE, VIOLATION};
use anyhow::{bail, Context, Result};
use std::path::Path;
use tsoser::explore::{suite, Options};
use tsoser::output::explore as report;
use tsoser::program::ReadOptions;

pub(crate) fn cmd_suite(
    dir: &Path,
    read: &ReadOptions,
    expected: Option<&Path>,
    o: Options,
    as_json: bool,
    herd: bool,
) -> Result<u8> {
    let want = expected.map(suite::read_expected).transpose()?;
    let hook: &suite::Herd = &tsoser::output::herd::herd;
    let sum = suite::run(dir, read, o, want.as_ref(), herd.then_some(hook))
        .with_context(|| format!("cannot read {}", dir.display()))?;
    if o.config.expired() && sum.unknown() > 0 {
        warn(&format!(
            "tsoser: the --timeout ran out: {} test{} left unknown",
            sum.unknown(),
            if sum.unknown() == 1 { "" } else { "s" }
        ));
    }
    let (mismatches, errors, unknown) = (sum.mismatches(), sum.errors(), sum.unknown());
    let (missing, not_robust, n) = (sum.without_expectation(), sum.not_robust(), sum.rows.len());
    // A test that does not parse, a mismatch, a test left unknown, in that order.
    let exit = if errors > 0 {
        USAGE
    } else if mismatches > 0 {
        VIOLATION
    } else if unknown > 0 {
        UNKNOWN
    } else {
        OK
    };
    if as_json {
        let v = report::suite_json(&dir.display().to_string(), o.config.model, &sum);
        crate::out::json_out(serde_json::to_value(v)?)?;
        return Ok(exit);
    }
    // herd's log on standard output; tsoser's lines on standard error.
    let line = |text: String| {
        if herd {
            warn(&text)
        } else {
            outln!("{text}")
        }
    };
    for r in &sum.rows {
        match &r.herd {
            Some(Ok(h)) => out!("{h}"),
            Some(Err(e)) => warn(&format!("tsoser: {}: no herd report: {e}", r.test)),
            None => {}
        }
    }
    for r in &sum.rows {
        if let Some(e) = &r.error {
            line(format!("ERROR     {}: {e}", r.test));
        } else if r.matches() == Some(false) {
            line(format!(
                "MISMATCH  {}: {} {} (expected {})",
                r.test,
                if r.assertion {
                    "an assertion fails:"
                } else {
                    "condition"
                },
                r.holds.unwrap(),
                r.expected.unwrap()
            ));
        }
    }
    let verdicts = if expected.is_some() {
        format!(
            "{} match, {mismatches} mismatch{}, {missing} without an expectation",
            n - mismatches - errors - unknown - missing,
            if mismatches == 1 { "" } else { "es" }
        )
    } else {
        format!("{} explored (no --expected)", n - errors - unknown)
    };
    line(format!(
        "{n} tests under {}: {verdicts}, {errors} error{}, {unknown} unknown{}; {:.2} s",
        o.config.model.name().to_uppercase(),
        if errors == 1 { "" } else { "s" },
        if o.robustness {
            format!(", {not_robust} not robust")
        } else {
            String::new()
        },
        sum.seconds
    ));
    Ok(exit)
}

/// `tsoser suite`: its flags checked into the explorer's options.
pub(crate) fn suite_args(a: SuiteArgs) -> Result<u8> {
    let o = Options {
        config: config(&a.bounds)?,
        robustness: a.robustness,
        engine: engine(&a.bounds),
        program_unroll: false,
    };
    let herd = a.format == SuiteFormat::Herd;
    if herd && a.json {
        bail!("--json and --format herd exclude each other");
    }
    let read = a.c.options(a.bounds.unroll);
    cmd_suite(&a.dir, &read, a.expected.as_deref(), o, a.json, herd)
}
