//! A [`Config`] expanded into runs, in a fixed order, each with a stable id; shards.

use super::config::{Config, External, FamilyConfig};
use crate::cnf::Cnf;
use crate::error::Error;
use crate::reduction::sat_to_trace;
use crate::trace::{gen, Trace};
use itertools::iproduct;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where a run's trace comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Dense {
        shape: gen::Shape,
        pairs: usize,
        seed: u64,
    },
    /// [`gen::generate`] of a shape (the realistic families).
    Shape {
        shape: gen::Shape,
        seed: u64,
    },
    /// [`gen::blocks`]: `blocks` blocks of 40 dense events over `threads` threads.
    Blocks {
        threads: usize,
        blocks: usize,
        seed: u64,
    },
    Sat {
        vars: u32,
        clauses: usize,
        clause_len: usize,
        seed: u64,
    },
    File(PathBuf),
}

impl Source {
    /// The trace (generated ones are the same for the same parameters).
    pub fn trace(&self) -> Result<Trace, crate::FileError> {
        Ok(match self {
            Source::Dense { shape, pairs, seed } => {
                let t = gen::generate(shape, *seed);
                if *pairs > 0 {
                    gen::pair_first(&t, *pairs)
                } else {
                    t
                }
            }
            Source::Shape { shape, seed } => gen::generate(shape, *seed),
            Source::Blocks {
                threads,
                blocks,
                seed,
            } => gen::blocks(&gen::Shape::dense(40, *threads, 2), *blocks, *seed),
            Source::Sat {
                vars,
                clauses,
                clause_len,
                seed,
            } => sat_to_trace(&Cnf::random(*vars, *clauses, *clause_len, *seed)).trace,
            Source::File(p) => crate::trace::read_file(p)?,
        })
    }
}

/// One run of the matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// `family/param=value/…/seed=S/decider/semantics`: unique in the matrix, stable
    /// across invocations (the key of resumption and sharding).
    pub id: String,
    /// The id's trace part (without decider and semantics): one trace per key.
    pub key: String,
    pub family: &'static str,
    /// The family's parameters and the seed, as recorded.
    pub params: Value,
    pub source: Source,
    pub decider: String,
    /// The decider's command, when it is an external one (`decider` is its name).
    pub external: Option<External>,
    pub semantics: String,
}

/// Expands `config` (whose relative paths are relative to `base`): families in order,
/// then their parameters, then seeds, then deciders (tsoser's, then the external ones) ×
/// semantics innermost.
pub fn expand(config: &Config, base: &Path) -> Result<Vec<Run>, Error> {
    // Before anything is expanded; the directories' files are counted below.
    super::config::too_many_runs(config.runs())?;
    let mut traces: Vec<Spec> = Vec::new();
    for f in &config.families {
        family(f, base, &mut traces)?;
    }
    let n = (traces.len() as u128)
        .saturating_mul((config.deciders.len() + config.externals.len()) as u128)
        .saturating_mul(config.semantics.len() as u128);
    super::config::too_many_runs(n)?;
    let deciders: Vec<(&String, Option<&External>)> = (config.deciders.iter().map(|d| (d, None)))
        .chain(config.externals.iter().map(|x| (&x.name, Some(x))))
        .collect();
    let mut runs = Vec::new();
    for (family, key, params, source) in traces {
        for &(d, external) in &deciders {
            for s in &config.semantics {
                runs.push(Run {
                    id: format!("{key}/{d}/{s}"),
                    key: key.clone(),
                    family,
                    params: params.clone(),
                    source: source.clone(),
                    decider: d.clone(),
                    external: external.cloned(),
                    semantics: s.clone(),
                });
            }
        }
    }
    let mut ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Format {
            line: 0,
            message: format!(
                "the matrix names run `{}` twice (a repeated family or value)",
                w[0]
            ),
        });
    }
    Ok(runs)
}

/// A trace of the matrix before its deciders: family, key, parameters, source.
type Spec = (&'static str, String, Value, Source);

/// The traces of family `f`, parameters in order, then seeds.
fn family(f: &FamilyConfig, base: &Path, traces: &mut Vec<Spec>) -> Result<(), Error> {
    let name = f.name();
    match f {
        FamilyConfig::Dense {
            events,
            threads,
            vars,
            txn_len,
            pairs,
            write,
            seeds,
        } => {
            let product = iproduct!(events, threads, vars, txn_len, pairs, write, 0..*seeds);
            for (&n, &k, &v, &l, &p, &w, seed) in product {
                let key = format!(
                    "{name}/events={n}/threads={k}/vars={v}/txn_len={l}/pairs={p}/write={w}/seed={seed}"
                );
                let params = json!({"events": n, "threads": k, "vars": v, "txn_len": l, "pairs": p, "write": w, "seed": seed});
                let shape = gen::Shape {
                    txn_len: l,
                    write: w,
                    ..gen::Shape::dense(n, k, v)
                };
                let src = Source::Dense {
                    shape,
                    pairs: p,
                    seed,
                };
                traces.push((name, key, params, src));
            }
        }
        FamilyConfig::Blocks {
            events,
            threads,
            seeds,
        } => {
            for (&n, &k, seed) in iproduct!(events, threads, 0..*seeds) {
                let key = format!("{name}/events={n}/threads={k}/seed={seed}");
                let params = json!({"events": n, "threads": k, "seed": seed});
                let src = Source::Blocks {
                    threads: k,
                    blocks: (n / (40 + k)).max(1),
                    seed,
                };
                traces.push((name, key, params, src));
            }
        }
        FamilyConfig::Serial {
            events,
            threads,
            vars,
            seeds,
            ..
        }
        | FamilyConfig::Random {
            events,
            threads,
            vars,
            seeds,
        } => {
            let serial = matches!(f, FamilyConfig::Serial { .. });
            let fenced = matches!(f, FamilyConfig::Serial { fenced: true, .. });
            for (&n, &k, &v, seed) in iproduct!(events, threads, vars, 0..*seeds) {
                let key = format!("{name}/events={n}/threads={k}/vars={v}/seed={seed}");
                let params = json!({"events": n, "threads": k, "vars": v, "seed": seed});
                let shape = gen::Shape {
                    threads: k,
                    vars: v,
                    serial,
                    txn_fenced: fenced,
                    ..gen::Shape::realistic(n)
                };
                traces.push((name, key, params, Source::Shape { shape, seed }));
            }
        }
        FamilyConfig::Sat {
            vars,
            ratio,
            clause_len,
            seeds,
        } => {
            for &v in vars {
                let clauses = (ratio * v as f64).round() as usize;
                for seed in 0..*seeds {
                    let key = format!(
                        "{name}/vars={v}/clauses={clauses}/clause_len={clause_len}/seed={seed}"
                    );
                    let params = json!({"vars": v, "clauses": clauses, "clause_len": clause_len, "seed": seed});
                    let src = Source::Sat {
                        vars: v as u32,
                        clauses,
                        clause_len: *clause_len,
                        seed,
                    };
                    traces.push((name, key, params, src));
                }
            }
        }
        FamilyConfig::Dir { path } => dir_family(name, path, base, traces)?,
    }
    Ok(())
}

/// The `.yaml` and `.std` files of directory `path` (relative to `base`), in name order.
fn dir_family(
    name: &'static str,
    path: &Path,
    base: &Path,
    traces: &mut Vec<Spec>,
) -> Result<(), Error> {
    let dir = base.join(path);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Error::Format {
            line: 0,
            message: format!("family dir: cannot read {}: {e}", dir.display()),
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "std")))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::Format {
            line: 0,
            message: format!("family dir: no .yaml or .std file in {}", dir.display()),
        });
    }
    for p in files {
        let file = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let key = format!("{name}/{}/file={file}", path.display());
        let params = json!({"file": p.display().to_string()});
        traces.push((name, key, params, Source::File(p)));
    }
    Ok(())
}

/// Shard `i` of `n` (1-based): the runs whose position in the matrix is `i − 1` modulo
/// `n`. The shards of one matrix partition it.
pub fn shard(runs: Vec<Run>, i: usize, n: usize) -> Vec<Run> {
    assert!((1..=n).contains(&i), "shard {i}/{n}");
    runs.into_iter()
        .enumerate()
        .filter(|(k, _)| k % n == i - 1)
        .map(|(_, r)| r)
        .collect()
}
