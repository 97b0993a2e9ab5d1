//! `tsoser gen-prog`: seeded random programs.

use crate::args::{GenProgArgs, ProgFamily};
use crate::out::{write_out, OK};
use anyhow::{bail, Context, Result};
use tsoser::program::print::to_prog;

/// The most files `gen-prog --count` may write.
const MAX_COUNT: u64 = 100_000;
/// The most threads, locations and accesses per thread of `gen-prog` (programs the
/// explorer can still enumerate are far smaller).
const MAX_GEN: usize = 64;

/// `tsoser gen-prog`: seeded random programs in the `.prog` format.
pub(crate) fn cmd_gen_prog(a: &GenProgArgs) -> Result<u8> {
    use tsoser::program::gen::{generate, Family, Shape};
    for (flag, v) in [
        ("--threads", a.threads),
        ("--vars", a.vars),
        ("--len", a.len),
    ] {
        if !(1..=MAX_GEN).contains(&v) {
            bail!("{flag} takes 1 to {MAX_GEN}");
        }
    }
    if !(0.0..=1.0).contains(&a.fences) || !(0.0..=1.0).contains(&a.locked) {
        bail!("--fences and --locked are probabilities (0 to 1)");
    }
    if a.loops > 64 {
        bail!("--loops takes 0 to 64");
    }
    if a.count > MAX_COUNT {
        bail!(
            "--count takes 1 to {MAX_COUNT} (for more, run gen-prog again from --seed {})",
            a.seed.wrapping_add(MAX_COUNT)
        );
    }
    if a.count == 0 || (a.count > 1 && a.out.is_none()) {
        bail!("--count N writes N files: give --out DIR (without it, one program is printed)");
    }
    let family = |i: u64| match a.family {
        ProgFamily::Random => Family::Random,
        ProgFamily::Sb => Family::StoreBuffering,
        ProgFamily::Mp => Family::MessagePassing,
        ProgFamily::Fenced => Family::TxnFenced,
        ProgFamily::Mixed => Family::ALL[(i % 4) as usize],
    };
    let shape = |i: u64| Shape {
        threads: a.threads,
        vars: a.vars,
        len: a.len,
        fences: a.fences,
        locked: a.locked,
        txns: !a.no_txns,
        loops: a.loops,
        ..Shape::new(family(i))
    };
    let Some(dir) = &a.out else {
        let p = generate(&shape(0), a.seed);
        write_out(None, &to_prog(&p))?;
        return Ok(OK);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for i in 0..a.count {
        let seed = a.seed.wrapping_add(i);
        let p = generate(&shape(i), seed);
        let path = dir.join(format!("{}.prog", p.name));
        write_out(Some(&path), &to_prog(&p))?;
    }
    Ok(OK)
}
