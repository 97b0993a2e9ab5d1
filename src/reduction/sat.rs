//! CNF φ ↦ trace τ_φ with: τ_φ is not TSO-serializable ⟺ φ is satisfiable
//! (`docs/hardness.md`).
//!
//! Every write has a location of its own, read by exactly two transactions: an earlier
//! *in-reader* and a later *out-reader*. A cycle can pass through the write's
//! transaction only from the in-reader to the out-reader, with the commit between the
//! two reads (a *passage*). The gadgets — one per clause, then one per variable — are
//! sets of options, each a chain of writes joined by link transactions; hubs join
//! consecutive gadgets and one transaction `Z`, read at both ends of the trace, closes
//! the cycle. Each literal occurrence is a thread of two writes: first its write in
//! the variable gadget's chain that makes the literal false, then its write in the
//! clause gadget. FIFO orders their commits, and the clause gadgets come first in the
//! trace: passing a literal in its clause leaves its thread's first commit too early
//! for the variable gadget's opposite chain.

use crate::cnf::{Cnf, Lit};
use crate::trace::{Op, Trace, TraceBuilder};

/// The trace of a formula and what it is made of.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub trace: Trace,
    /// Clauses kept (tautologies are dropped: always satisfied).
    pub clauses: usize,
    /// Variables that occur in a kept clause (each has a gadget).
    pub vars: usize,
    /// Literal occurrences in the kept clauses (duplicates merged).
    pub occurrences: usize,
    /// Writes: two per occurrence, plus one per empty chain of a variable gadget (and
    /// one if no clause is kept).
    pub writes: usize,
}

/// One write of a chain: its thread, transaction and location.
#[derive(Clone)]
struct Write {
    thread: String,
    txn: String,
    loc: String,
}

/// The clauses the construction keeps, numbered from 1 as in the formula: literals
/// sorted and merged, tautologies dropped (they always hold).
fn kept_clauses(cnf: &Cnf) -> Vec<(usize, Vec<Lit>)> {
    cnf.clauses
        .iter()
        .enumerate()
        .filter_map(|(j, c)| {
            let mut c = c.clone();
            c.sort();
            c.dedup();
            let taut = c.windows(2).any(|w| w[0].var == w[1].var);
            (!taut).then_some((j + 1, c))
        })
        .collect()
}

/// Builds τ_φ (docs/hardness.md): `3·W` events for `W` writes, every thread but `z`
/// with at most two transactions.
pub fn sat_to_trace(cnf: &Cnf) -> Reduction {
    let clauses = kept_clauses(cnf);
    let name = |l: Lit| format!("{}x{}", if l.positive { "" } else { "n" }, l.var);
    // Per variable: the chain that makes it true holds the writes of its negative
    // occurrences; the chain that makes it false, of its positive ones.
    let mut chains: std::collections::BTreeMap<u32, [Vec<Write>; 2]> = Default::default();
    let mut occurrences: Vec<(Write, Write)> = Vec::new();
    let mut clause_options: Vec<Vec<Vec<Write>>> = Vec::new();
    for (j, c) in &clauses {
        let mut options = Vec::new();
        for &l in c {
            let side = if l.positive { "F" } else { "T" };
            let thread = format!("o{j}_{}", name(l));
            let var_side = Write {
                thread: thread.clone(),
                txn: format!("V{}{side}{j}", l.var),
                loc: format!("v{}{side}{j}", l.var),
            };
            let clause_side = Write {
                thread,
                txn: format!("C{j}_{}", name(l)),
                loc: format!("c{j}_{}", name(l)),
            };
            chains.entry(l.var).or_default()[usize::from(l.positive)].push(var_side.clone());
            options.push(vec![clause_side.clone()]);
            occurrences.push((var_side, clause_side));
        }
        clause_options.push(options);
    }
    let mut dummies: Vec<Write> = Vec::new();
    let mut gadgets: Vec<Vec<Vec<Write>>> = clause_options;
    for (&var, [t, f]) in &chains {
        let mut options = Vec::new();
        for (chain, side) in [(t, "T"), (f, "F")] {
            if chain.is_empty() {
                let d = Write {
                    thread: format!("d{var}{side}"),
                    txn: format!("V{var}{side}0"),
                    loc: format!("v{var}{side}0"),
                };
                dummies.push(d.clone());
                options.push(vec![d]);
            } else {
                options.push(chain.clone());
            }
        }
        gadgets.push(options);
    }
    if gadgets.is_empty() {
        // No clause: φ holds; one gadget of one dummy write lets the cycle exist.
        let d = Write {
            thread: "d0".into(),
            txn: "E".into(),
            loc: "e".into(),
        };
        dummies.push(d.clone());
        gadgets.push(vec![vec![d]]);
    }

    let mut b = TraceBuilder::new().name(format!("sat-v{}-c{}", cnf.vars, cnf.clauses.len()));
    let wr = |b: &mut TraceBuilder, w: &Write| {
        b.push(&w.thread, Some(&w.txn), Op::Wr, Some(&w.loc));
    };
    // 1. Every write issued, each occurrence's variable-side write first (FIFO).
    for (v, c) in &occurrences {
        wr(&mut b, v);
        wr(&mut b, c);
    }
    for d in &dummies {
        wr(&mut b, d);
    }
    let rd = |b: &mut TraceBuilder, thread: &str, txn: &str, w: &Write| {
        b.push(thread, Some(txn), Op::Rd, Some(&w.loc));
    };
    // 2. Z reads the first write of each option of the first gadget...
    for o in &gadgets[0] {
        rd(&mut b, "z", "Z", &o[0]);
    }
    // 3. ...then each gadget in turn: the links of its chains, then the hub to the next
    // gadget (out-reads of this one, in-reads of the next), or Z's out-reads at the end.
    for (g, options) in gadgets.iter().enumerate() {
        for o in options {
            for (k, pair) in o.windows(2).enumerate() {
                let txn = format!("L{}_{k}", pair[0].txn);
                let thread = format!("l{}_{k}", pair[0].txn);
                rd(&mut b, &thread, &txn, &pair[0]);
                rd(&mut b, &thread, &txn, &pair[1]);
            }
        }
        let (thread, txn) = match gadgets.get(g + 1) {
            Some(_) => (format!("h{}", g + 1), format!("H{}", g + 1)),
            None => ("z".to_string(), "Z".to_string()),
        };
        for o in options {
            rd(
                &mut b,
                &thread,
                &txn,
                o.last().expect("chains are not empty"),
            );
        }
        if let Some(next) = gadgets.get(g + 1) {
            for o in next {
                rd(&mut b, &thread, &txn, &o[0]);
            }
        }
    }
    let trace = b.build().expect("the construction is well-formed");
    Reduction {
        writes: trace.writes().count(),
        trace,
        clauses: clauses.len(),
        vars: chains.len(),
        occurrences: occurrences.len(),
    }
}

/// The assignment a violation's cycle encodes: variable i is true when the cycle
/// passes the chain `V{i}T…` of its gadget, false for `V{i}F…`. `cycle` lists the
/// transactions of the cycle by name; `None` if some occurring variable's gadget is not
/// passed by exactly one chain (which the construction rules out, docs/hardness.md).
pub fn decode(cnf: &Cnf, cycle: &[&str]) -> Option<Vec<bool>> {
    let mut a = vec![false; cnf.vars as usize + 1];
    let mut seen = vec![[false; 2]; cnf.vars as usize + 1];
    for name in cycle {
        let Some(rest) = name.strip_prefix('V') else {
            continue;
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let var: usize = rest[..digits].parse().ok()?;
        let side = rest[digits..].chars().next()?;
        let truth = side == 'T';
        seen.get_mut(var)?[usize::from(truth)] = true;
        a[var] = truth;
    }
    kept_clauses(cnf)
        .iter()
        .flat_map(|(_, c)| c)
        .all(|l| seen.get(l.var as usize).is_some_and(|s| s[0] != s[1]))
        .then_some(a)
}

/// Theorem 1 of docs/hardness.md: τ_φ with one transaction of two events, `Zp` =
/// {`rd zs_`, `rd ze_`} of thread `zz`, and every other transaction a single event.
/// Hubs and links become one transaction per read; `Z`'s first reads become thread
/// `S` after `rd zs_`, its last reads thread `E` before `rd ze_`; threads `ws` and `we`
/// write `zs_` and `ze_` before every other write. `Zp`'s first read comes just before
/// `S`'s, or first in the trace with `at_start` (`gen --pairs 1`'s shape: the first two
/// events of the first thread). Still: not serializable ⟺ φ satisfiable.
pub fn one_transaction(r: &Reduction, at_start: bool) -> Trace {
    let t = &r.trace;
    let mut size: std::collections::HashMap<&str, usize> = Default::default();
    for e in 0..t.len() {
        *size.entry(t.txn_name(e)).or_default() += 1;
    }
    // Z's reads: a first run of consecutive events, then the last ones (with no
    // clause kept, Z's two reads are consecutive: one each).
    let z: Vec<usize> = (0..t.len()).filter(|&e| t.txn_name(e) == "Z").collect();
    let split = match z.windows(2).position(|w| w[1] != w[0] + 1) {
        Some(i) => i + 1,
        None => z.len() / 2,
    };
    let (first, last) = (z[0], z[z.len() - 1]);
    let mut b = TraceBuilder::new().name(format!(
        "{}-one{}",
        t.name.as_deref().unwrap_or("sat"),
        if at_start { "-first" } else { "" }
    ));
    if at_start {
        b.push("zz", Some("Zp"), Op::Rd, Some("zs_"));
    }
    b.push("ws", Some("Ws"), Op::Wr, Some("zs_"));
    b.push("we", Some("We"), Op::Wr, Some("ze_"));
    let mut n = 0;
    let mut single = |b: &mut TraceBuilder, thread: &str, prefix: &str, op: Op, var: &str| {
        n += 1;
        b.push(thread, Some(&format!("{prefix}.{n}")), op, Some(var));
    };
    for e in 0..t.len() {
        let ev = &t.events[e];
        let var = &t.vars[ev.var.expect("reads and writes only")];
        let (thread, txn) = (t.thread_name(e), t.txn_name(e));
        if e == first {
            if !at_start {
                b.push("zz", Some("Zp"), Op::Rd, Some("zs_"));
            }
            single(&mut b, "S", "S", Op::Rd, "zs_");
        }
        if txn == "Z" {
            let role = if z.iter().position(|&x| x == e) < Some(split) {
                "S"
            } else {
                "E"
            };
            single(&mut b, role, role, ev.op, var);
            if e == last {
                single(&mut b, "E", "E", Op::Rd, "ze_");
                b.push("zz", Some("Zp"), Op::Rd, Some("ze_"));
            }
        } else if size[txn] > 1 {
            single(&mut b, thread, txn, ev.op, var);
        } else {
            b.push(thread, Some(txn), ev.op, Some(var));
        }
    }
    b.build().expect("the construction is well-formed")
}
