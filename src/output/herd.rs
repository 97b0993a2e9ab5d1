//! An exploration in herd7's output conventions (`explore --format herd`, `suite
//! --format herd`), so herd's own tools (mcompare7, msort7) can compare tsoser's runs
//! with herd7's:
//!
//! ```text
//! Test SB Allowed
//! States 4
//! 0:EAX=0; 1:EAX=0;
//! …
//! Ok
//! Witnesses
//! Positive: 1 Negative: 3
//! Condition exists (0:EAX=0 /\ 1:EAX=0)
//! Observation SB Sometimes 1 3
//! Time SB 0.00
//! ```
//!
//! Registers are named `T:r` with T the thread's number, as conditions name them. The
//! witnesses count final *states* (herd7 counts candidate executions; tsoser explores
//! interleavings, whose counts are in its own report), so `Ok`/`No` and
//! `Never`/`Sometimes`/`Always` agree with herd7's whenever the states do.

use crate::explore::suite::Unfinished;
use crate::explore::Exploration;
use crate::program::{Cond, Place, Program, Quantifier};

/// herd's name of a place: `0:EAX` for a register, `x` for a location.
fn place(p: &Program, pl: &Place) -> String {
    match pl {
        Place::Reg(t, r) => format!("{t}:{}", p.threads[*t].regs[*r]),
        Place::Mem(x) => p.locs[*x].clone(),
    }
}

/// A condition in herd's syntax; `top` omits the parentheses of a conjunction or
/// disjunction at the top.
fn cond(p: &Program, c: &Cond, top: bool) -> String {
    let wrap = |s: String| if top { s } else { format!("({s})") };
    match c {
        Cond::True => "true".into(),
        Cond::Atom(pl, v) => format!("{}={v}", place(p, pl)),
        Cond::Not(c) => format!("~{}", cond(p, c, false)),
        Cond::And(cs) => wrap(
            cs.iter()
                .map(|c| cond(p, c, false))
                .collect::<Vec<_>>()
                .join(" /\\ "),
        ),
        Cond::Or(cs) => wrap(
            cs.iter()
                .map(|c| cond(p, c, false))
                .collect::<Vec<_>>()
                .join(" \\/ "),
        ),
    }
}

/// The final states as herd prints them, each `0:EAX=0; x=1;` with registers (by
/// thread, then name) before locations (by name), sorted.
pub fn states(p: &Program, e: &Exploration) -> Vec<String> {
    let mut order: Vec<(usize, &Place)> = e.places.iter().enumerate().collect();
    let key = |pl: &Place| match pl {
        Place::Reg(t, r) => (0, *t, p.threads[*t].regs[*r].clone()),
        Place::Mem(x) => (1, 0, p.locs[*x].clone()),
    };
    order.sort_by_key(|(_, pl)| key(pl));
    let mut out: Vec<String> = e
        .outcomes
        .iter()
        .map(|(vals, _)| {
            order
                .iter()
                .map(|(i, pl)| format!("{}={};", place(p, pl), vals[*i]))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    out.sort();
    out
}

/// herd7's report of the exploration `e` of `p`; Err when the exploration did not
/// finish (herd's format has no *unknown*).
pub fn herd(p: &Program, e: &Exploration, seconds: f64) -> Result<String, Unfinished> {
    if !e.complete {
        return Err(Unfinished);
    }
    let (quantifier, c) = match &p.final_cond {
        Some(f) => (f.quantifier, f.cond.clone()),
        None => (Quantifier::Forall, Cond::True),
    };
    // States where the proposition holds, and where it does not.
    let holds = |vals: &Vec<i64>| {
        c.eval(&|pl: &Place| {
            let i = e.places.iter().position(|q| q == pl).expect("observed");
            vals[i]
        })
    };
    let yes = e.outcomes.iter().filter(|(v, _)| holds(v)).count();
    let no = e.outcomes.len() - yes;
    let (ok, positive, negative) = match quantifier {
        Quantifier::Exists => (yes > 0, yes, no),
        Quantifier::NotExists => (yes == 0, no, yes),
        Quantifier::Forall => (no == 0, yes, no),
    };
    let observation = if yes == 0 {
        "Never"
    } else if no == 0 {
        "Always"
    } else {
        "Sometimes"
    };
    let name = &p.name;
    let mut s = format!(
        "Test {name} {}\n",
        if quantifier == Quantifier::Forall {
            "Required"
        } else {
            "Allowed"
        }
    );
    let st = states(p, e);
    s += &format!("States {}\n", st.len());
    for line in st {
        s += &line;
        s.push('\n');
    }
    s += if ok { "Ok\n" } else { "No\n" };
    s += &format!("Witnesses\nPositive: {positive} Negative: {negative}\n");
    s += &format!("Condition {quantifier} ({})\n", cond(p, &c, true));
    s += &format!("Observation {name} {observation} {yes} {no}\n");
    s += &format!("Time {name} {seconds:.2}\n");
    Ok(s)
}
