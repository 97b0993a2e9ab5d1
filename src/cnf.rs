//! CNF formulas: the DIMACS reader (errors with their line), random k-SAT, and
//! satisfiability by enumeration (small formulas; the reduction's tests use their own).
//! One reader for every DIMACS file tsoser reads (`encode`'s output is read back by it too).

use crate::error::{Error, FileError};
use crate::text::excerpt;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// A literal: variable `var` (1-based, as in DIMACS) and its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit {
    pub var: u32,
    pub positive: bool,
}

impl Lit {
    /// From a DIMACS literal (non-zero, |l| < 2³²).
    pub fn dimacs(l: i64) -> Lit {
        debug_assert!(l != 0 && l.unsigned_abs() <= u32::MAX as u64, "literal {l}");
        Lit {
            var: l.unsigned_abs() as u32,
            positive: l > 0,
        }
    }

    /// Its value under `assignment` (indexed by variable; index 0 unused).
    pub fn holds(self, assignment: &[bool]) -> bool {
        assignment[self.var as usize] == self.positive
    }
}

impl std::fmt::Display for Lit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.positive { "" } else { "-" };
        write!(f, "{sign}{}", self.var)
    }
}

/// A formula in conjunctive normal form over variables `1..=vars`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cnf {
    pub vars: u32,
    pub clauses: Vec<Vec<Lit>>,
}

/// The largest variable count accepted (a trace has a few events per occurrence).
pub const MAX_VARS: u64 = 1 << 24;

impl Cnf {
    /// Reads a DIMACS CNF file (`p cnf V C`, clauses ending in 0, `c` comments; a
    /// `%` line ends the clauses, as in SATLIB's files).
    pub fn read(path: &Path) -> Result<Cnf, FileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| FileError {
            file: file.clone(),
            error: Error::Io(e),
        })?;
        Cnf::parse(&text).map_err(|error| FileError { file, error })
    }

    /// Parses DIMACS CNF text.
    pub fn parse(text: &str) -> Result<Cnf, Error> {
        let bad = |line: usize, message: String| Error::Format { line, message };
        let mut header: Option<(u64, u64, usize)> = None;
        let mut clauses: Vec<Vec<Lit>> = Vec::new();
        let mut current: Vec<Lit> = Vec::new();
        let mut last_line = 0;
        for (i, line) in text.lines().enumerate() {
            let no = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('c') {
                continue;
            }
            if line.starts_with('%') {
                break;
            }
            if line.starts_with('p') {
                let f: Vec<&str> = line.split_whitespace().collect();
                if header.is_some() {
                    return Err(bad(no, "a second `p` line".into()));
                }
                if f.len() != 4 || f[0] != "p" || f[1] != "cnf" {
                    return Err(bad(
                        no,
                        format!("expected `p cnf VARS CLAUSES`, found `{}`", excerpt(line)),
                    ));
                }
                let num = |s: &str, what: &str| {
                    s.parse::<u64>()
                        .map_err(|_| bad(no, format!("{what} `{}` is not a count", excerpt(s))))
                };
                let (v, c) = (num(f[2], "variable count")?, num(f[3], "clause count")?);
                if v > MAX_VARS {
                    return Err(bad(no, format!("{v} variables: at most {MAX_VARS}")));
                }
                header = Some((v, c, no));
                continue;
            }
            let Some((vars, _, _)) = header else {
                return Err(bad(no, "clauses before the `p cnf` line".into()));
            };
            for tok in line.split_whitespace() {
                // `0` or `-?[1-9][0-9]*`: no `+1`, no `-0` (which would end a clause).
                let digits = tok.strip_prefix('-').unwrap_or(tok);
                let canonical = tok == "0"
                    || (digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0'));
                let l: i64 = tok
                    .parse()
                    .ok()
                    .filter(|_| canonical && !digits.is_empty())
                    .ok_or_else(|| bad(no, format!("`{}` is not a literal", excerpt(tok))))?;
                if l == 0 {
                    clauses.push(std::mem::take(&mut current));
                    continue;
                }
                if l.unsigned_abs() > vars {
                    return Err(bad(
                        no,
                        format!("literal {l}: the header declares {vars} variables"),
                    ));
                }
                current.push(Lit::dimacs(l));
            }
            last_line = no;
        }
        let Some((vars, count, header_line)) = header else {
            let lines = text.lines().count();
            return Err(bad(lines, "no `p cnf VARS CLAUSES` line".into()));
        };
        if !current.is_empty() {
            clauses.push(current); // a last clause without its 0
        }
        if clauses.len() as u64 != count {
            let line = if last_line > 0 {
                last_line
            } else {
                header_line
            };
            return Err(bad(
                line,
                format!(
                    "the header declares {count} clauses, the file has {}",
                    clauses.len()
                ),
            ));
        }
        Ok(Cnf {
            vars: vars as u32,
            clauses,
        })
    }

    /// A random k-SAT formula: `clauses` clauses of `k` distinct variables, signs fair
    /// coins (the fixed clause length model; hardest near 4.26 clauses per variable
    /// for k = 3).
    pub fn random(vars: u32, clauses: usize, k: usize, seed: u64) -> Cnf {
        assert!(k as u32 <= vars, "k distinct variables of {vars}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let clauses = (0..clauses)
            .map(|_| {
                let mut c: Vec<Lit> = Vec::with_capacity(k);
                while c.len() < k {
                    let var = rng.random_range(1..=vars);
                    if c.iter().all(|l| l.var != var) {
                        c.push(Lit {
                            var,
                            positive: rng.random_bool(0.5),
                        });
                    }
                }
                c
            })
            .collect();
        Cnf { vars, clauses }
    }

    /// DIMACS text.
    pub fn to_dimacs(&self) -> String {
        let mut s = format!("p cnf {} {}\n", self.vars, self.clauses.len());
        for c in &self.clauses {
            for l in c {
                s += &format!("{l} ");
            }
            s += "0\n";
        }
        s
    }

    /// Whether `assignment` (index = variable, 0 unused) satisfies every clause.
    pub fn satisfied_by(&self, assignment: &[bool]) -> bool {
        self.clauses
            .iter()
            .all(|c| c.iter().any(|l| l.holds(assignment)))
    }

    /// A satisfying assignment, by enumeration (for up to 24 variables).
    pub fn solve_by_enumeration(&self) -> Option<Vec<bool>> {
        assert!(self.vars <= 24, "enumeration is for small formulas");
        (0u32..1 << self.vars).find_map(|bits| {
            let a: Vec<bool> = (0..=self.vars)
                .map(|v| v > 0 && bits >> (v - 1) & 1 == 1)
                .collect();
            self.satisfied_by(&a).then_some(a)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimacs_reads_and_writes_back() {
        let text = "c a comment\np cnf 3 2\n1 -3 0\n2 3\n-1 0\n";
        let f = Cnf::parse(text).unwrap();
        assert_eq!(f.vars, 3);
        assert_eq!(f.clauses.len(), 2);
        assert_eq!(f.clauses[1].len(), 3);
        assert_eq!(Cnf::parse(&f.to_dimacs()).unwrap(), f);
        // SATLIB's trailer.
        assert_eq!(
            Cnf::parse("p cnf 1 1\n1 0\n%\n0\n").unwrap().clauses.len(),
            1
        );
    }

    #[test]
    fn bad_dimacs_names_the_line() {
        for (text, line, what) in [
            ("1 0\n", 1, "before the `p cnf`"),
            ("p cnf 2 1\n1 x 0\n", 2, "not a literal"),
            ("p cnf 2 1\n\n1 3 0\n", 3, "declares 2 variables"),
            ("p cnf 2 2\n1 0\n", 2, "declares 2 clauses"),
            ("p dnf 2 2\n", 1, "expected `p cnf"),
            ("p cnf 2 1\np cnf 2 1\n", 2, "a second"),
            ("c only\n", 1, "no `p cnf"),
            ("p cnf 2 2\n1 -0 2 0\n", 2, "`-0` is not a literal"),
            ("p cnf 2 1\n+1 0\n", 2, "`+1` is not a literal"),
            ("p cnf 2 1\n01 0\n", 2, "`01` is not a literal"),
        ] {
            let e = Cnf::parse(text).unwrap_err();
            assert_eq!(e.line().unwrap_or(0), line, "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn random_formulas_have_k_distinct_variables_and_repeat_with_the_seed() {
        let f = Cnf::random(5, 20, 3, 7);
        assert_eq!(f, Cnf::random(5, 20, 3, 7));
        assert_ne!(f, Cnf::random(5, 20, 3, 8));
        for c in &f.clauses {
            let mut v: Vec<u32> = c.iter().map(|l| l.var).collect();
            v.sort();
            v.dedup();
            assert_eq!(v.len(), 3);
        }
    }
}
