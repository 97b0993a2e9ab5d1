//! `tsoser encode`.

use crate::args::EncodeArgs;
use crate::args::Format;
use crate::check::timeout_arg;
use crate::out::{self, load, warn};
use anyhow::{bail, Result};
use tsoser::check::sat as satcheck;
use tsoser::check::Semantics;

/// `tsoser encode`: the formula on standard output. `--timeout` is polled between the
/// phases (reading, encoding, writing the text) and inside the eager closure, on this
/// one thread: past it no formula is printed and the answer is unknown (exit 3).
pub(crate) fn cmd_encode(a: &EncodeArgs) -> Result<u8> {
    let (file, format, semantics) = (a.file.as_path(), a.format, a.semantics.lib());
    let timeout = timeout_arg(a.timeout)?;
    let stop = tsoser::stop::Stop::after(timeout);
    // Standard output is for the formula: the unknown goes to standard error.
    let unknown = |when: &str| {
        warn(&format!(
            "tsoser: {}: unknown — --timeout of {:.3} s reached {when}",
            file.display(),
            timeout.unwrap_or_default().as_secs_f64()
        ));
        Ok(out::UNKNOWN)
    };
    let trace = load(file)?;
    if stop.expired() {
        return unknown("while reading the trace");
    }
    use satcheck::encode::ExportError;
    let built = match (format, semantics) {
        // Exact SMT: integer positions need no cuts; ASP: `#edge` keeps the order
        // acyclic; otherwise the eagerly closed formula.
        (Format::Smt2, Semantics::Exact) | (Format::Asp, _) => {
            satcheck::encode::whole_formula(&trace, semantics, &stop)
        }
        _ => satcheck::encode::export_formula(&trace, semantics, &stop),
    };
    let f = match built {
        Ok(f) => f,
        Err(ExportError::Stopped) => return unknown("while encoding"),
        Err(ExportError::TooLarge(e)) if format == Format::Dimacs => bail!(
            "{}: the exact formula is too large to write ({e}); decide it with `tsoser check --algo sat`",
            file.display()
        ),
        Err(ExportError::TooLarge(e)) => {
            bail!("{}: the formula is too large to write ({e})", file.display())
        }
        Err(e) => bail!("{}: {e}", file.display()),
    };
    let text = match format {
        Format::Dimacs => satcheck::export::to_dimacs(&trace, &f),
        Format::Smt2 => satcheck::export::to_smt2(&trace, &f, semantics),
        Format::Asp => satcheck::asp::to_asp(&trace, &f, semantics),
    };
    if stop.expired() {
        return unknown("while writing the formula");
    }
    out!("{text}");
    Ok(out::OK)
}
