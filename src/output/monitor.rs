//! A monitor's outcome as a person reads it (text) and as a program does (JSON), with
//! its evidence in the paper's terms ([`crate::monitor::evidence`], re-checked before
//! it is shown).

use super::json::{
    BurnimJson, EventJson, FencedJson, HbEdgeJson, Lemma1Json, RunStepJson, SoberJson, WitnessJson,
};
use crate::check::Verdict;
use crate::monitor::burnim::Model;
use crate::monitor::evidence::{self, BurnimEvidence, Evidence, ScSerEvidence, SoberEvidence};
use crate::monitor::fenced::Theorem3;
use crate::monitor::hb::HbKind;
use crate::monitor::{Answer, Kind, Outcome};
use crate::trace::exec::Step;
use crate::trace::{EventId, Trace};
use serde_json::Value;
use std::fmt::Write as _;

/// A report struct as the `report` value of `--json`.
fn to_json<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).expect("plain data")
}

/// An outcome made readable.
pub struct Explained {
    pub kind: Kind,
    /// `serializable` / `violation` (sc-ser), `no-report` / `violation` (sober, tso,
    /// pso), `serializable` / `violation` / `unknown` (fenced).
    pub verdict: &'static str,
    /// What the outcome answers (the fenced monitor's by Theorem 3).
    pub answer: Answer,
    pub stopped_at: Option<EventId>,
    /// One line: what the monitor decides and its answer.
    pub headline: String,
    /// The evidence, indented lines (empty when nothing was found).
    pub details: String,
    /// The `report` object of `--json` (`null` when nothing was found).
    pub report: Value,
}

/// The question each monitor answers, for the headline.
pub fn question(kind: Kind) -> &'static str {
    match kind {
        Kind::ScSer => "SC-serializable",
        Kind::Sober => "store-buffer safe (SOBER, Burckhardt & Musuvathi Fig. 2)",
        Kind::Tso => "no SC violation under TSO (monitor_TSO, Burnim et al. Fig. 4)",
        Kind::Pso => "no SC violation under PSO (monitor_PSO, Burnim et al. Fig. 5)",
        Kind::Fenced => "TSO-serializable (transaction-fenced monitor, Enea & Farzan Thm. 3)",
    }
}

fn ev(trace: &Trace, e: EventId) -> String {
    format!(
        "#{e} ({}, line {})",
        trace.describe(e),
        trace.events[e].line
    )
}

fn ev_json(trace: &Trace, e: EventId) -> EventJson {
    EventJson {
        event: e,
        line: trace.events[e].line as usize,
        text: trace.describe(e),
    }
}

fn path_text(trace: &Trace, from: EventId, path: &[(EventId, EventId, HbKind)]) -> String {
    let mut s = format!("#{} {}", from, trace.describe(from));
    for (_, b, kind) in path {
        let _ = write!(s, "  -{kind}->  #{b} {}", trace.describe(*b));
    }
    s
}

fn path_json(trace: &Trace, path: &[(EventId, EventId, HbKind)]) -> Vec<HbEdgeJson> {
    path.iter()
        .map(|&(a, b, k)| HbEdgeJson {
            from: ev_json(trace, a),
            to: ev_json(trace, b),
            kind: k.name(),
        })
        .collect()
}

fn step_text(trace: &Trace, s: Step) -> String {
    match s {
        Step::Event(e) => format!("#{e} {}", trace.describe(e)),
        Step::Commit(w) => format!("commit #{w}"),
    }
}

/// The evidence of a SOBER report: the hb path of Lemma 1 (1).
fn sober_text(trace: &Trace, x: &SoberEvidence) -> (String, SoberJson) {
    let (r, path) = (x.report, &x.path);
    let e = &trace.events[r.load];
    let (p, x) = (
        &trace.threads[e.thread],
        &trace.vars[e.var.expect("a load")],
    );
    let c = r.index;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  e_k = {} reads write number {} of {x}; write(E, {x}, {c}) = {}",
        ev(trace, r.load),
        r.reads,
        ev(trace, r.write)
    );
    let _ = writeln!(s, "  Lemma 1 for a load of {x} by {p} that reads the value before write(E, {x}, {c}) instead:");
    let _ = writeln!(
        s,
        "    (1) holds: write(E, {x}, {c}) →*hb last(E, {p}) = {}:",
        ev(trace, r.last)
    );
    let _ = writeln!(s, "          {}", path_text(trace, r.write, path));
    let lr = r.last_read.map_or("none".to_string(), |e| ev(trace, e));
    let _ = writeln!(
        s,
        "    (2) fails: not (i) write(E, {x}, {c}) →*rhb lastR(E, {p}) = {lr};"
    );
    let _ = writeln!(
        s,
        "               not (ii) {p} has no write to {x} with index ≥ {c}"
    );
    let _ = writeln!(
        s,
        "  so E ∪ {{that load}} is a TSO trace that is not SC: E, the events before #{}, is borderline",
        r.load
    );
    let j = SoberJson {
        load: ev_json(trace, r.load),
        reads: r.reads,
        write: ev_json(trace, r.write),
        index: c,
        last: ev_json(trace, r.last),
        last_read: r.last_read.map(|e| ev_json(trace, e)),
        lemma1: Lemma1Json {
            one: true,
            two_i: false,
            two_ii: false,
        },
        hb_path: path_json(trace, path),
    };
    (s, j)
}

/// The evidence of a Burnim report: e →*hb prev, the replayed run and its hb cycle.
fn burnim_text(trace: &Trace, x: &BurnimEvidence) -> (String, BurnimJson) {
    let (r, path, run, cycle) = (x.report, &x.path, &x.run, &x.cycle);
    let (model, fig) = match r.model {
        Model::Tso => ("TSO", "Fig. 10"),
        Model::Pso => ("PSO", "Fig. 9"),
        Model::Sc => unreachable!("evidence::burnim refuses an SC report"),
    };
    let pe = &trace.threads[trace.events[r.e].thread];
    let pi = &trace.threads[trace.events[r.ei].thread];
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  e    = {}: still in {pe}'s store buffer",
        ev(trace, r.e)
    );
    let _ = writeln!(
        s,
        "  prev = {}: {pi}'s event before e_i, and e →*hb prev:",
        ev(trace, r.prev)
    );
    let _ = writeln!(s, "         {}", path_text(trace, r.e, path));
    let _ = writeln!(s, "  e_i  = {}: runs before e commits", ev(trace, r.ei));
    let _ = writeln!(
        s,
        "  the {model} run ({fig}; every read but e_i's as in the SC run):"
    );
    let steps: Vec<String> = run.iter().map(|&st| step_text(trace, st)).collect();
    for chunk in steps.chunks(4) {
        let _ = writeln!(s, "    {}", chunk.join(", "));
    }
    let _ = writeln!(s, "  its happens-before cycle (not SC):");
    let _ = writeln!(s, "    {}", path_text(trace, r.e, cycle));
    let j = BurnimJson {
        e: ev_json(trace, r.e),
        prev: ev_json(trace, r.prev),
        ei: ev_json(trace, r.ei),
        hb_path: path_json(trace, path),
        run: run
            .iter()
            .map(|&st| match st {
                Step::Event(e) => RunStepJson {
                    kind: "event",
                    event: e,
                },
                Step::Commit(w) => RunStepJson {
                    kind: "commit",
                    event: w,
                },
            })
            .collect(),
        cycle: path_json(trace, cycle),
    };
    (s, j)
}

/// The ⊙SC cycle of an sc-ser report.
fn sc_ser_text<'a>(trace: &'a Trace, x: &'a ScSerEvidence) -> (String, WitnessJson<'a>) {
    let Verdict::Violation(w) = &x.violation else {
        unreachable!("sc-ser evidence is a violation")
    };
    (
        super::witness::witness_text(trace, w),
        super::witness::witness_json(trace, &x.violation).expect("a violation has a witness"),
    )
}

/// Explains an outcome; `Err` when its evidence does not re-check (an internal error).
pub fn explain(
    trace: &Trace,
    kind: Kind,
    outcome: &Outcome,
) -> Result<Explained, crate::monitor::Unconfirmed> {
    let evidence = evidence::evidence(trace, outcome)?;
    let q = format!(
        "{} [monitor {}, trace read as an SC run]",
        question(kind),
        kind.name()
    );
    let answer = outcome.answer();
    let mut x = Explained {
        kind,
        verdict: match (answer, kind) {
            (Answer::Violation, _) => "violation",
            (Answer::Unknown, _) => "unknown",
            (Answer::Clean, Kind::ScSer) => "serializable",
            (Answer::Clean, _) => "no-report",
        },
        answer,
        stopped_at: outcome.at(),
        headline: format!("{q}: yes"),
        details: String::new(),
        report: Value::Null,
    };
    let no = |at: EventId, what: &str| format!("{q}: NO — {what} {}", ev(trace, at));
    match &evidence {
        Evidence::Clean => {}
        Evidence::ScSer(e) => {
            let (t, j) = sc_ser_text(trace, e);
            x.headline = format!(
                "{q}: NO — from event #{} on ({}, line {})",
                e.at,
                trace.describe(e.at),
                trace.events[e.at].line
            );
            (x.details, x.report) = (t, to_json(j));
        }
        Evidence::Sober(e) => {
            let (t, j) = sober_text(trace, e);
            x.headline = no(e.report.load, "borderline before");
            (x.details, x.report) = (t, to_json(j));
        }
        Evidence::Burnim(e) => {
            let (t, j) = burnim_text(trace, e);
            x.headline = no(e.report.ei, "SC violation reachable at");
            (x.details, x.report) = (t, to_json(j));
        }
        Evidence::Fenced {
            unfenced,
            theorem3,
            sc_ser,
            sober,
        } => {
            x.headline = match theorem3 {
                Theorem3::NotFenced => format!(
                    "{q}: unknown — the trace is not transaction-fenced, so Theorem 3 does not apply{}",
                    if outcome.is_violation() { " (a part reports: see below)" } else { "" }
                ),
                Theorem3::NotTsoSerializable => no(
                    outcome.at().expect("a part reported"),
                    "transaction-fenced and a part reports, so by Theorem 3 the program is not TSO-serializable; first report at",
                ),
                Theorem3::NothingFound => format!(
                    "{q}: no violation found on this SC run (transaction-fenced; neither part reports — a yes of Theorem 3 needs every SC run of the program)"
                ),
            };
            (x.details, x.report) = fenced_text(trace, *unfenced, *theorem3, sc_ser, sober);
        }
    }
    Ok(x)
}

/// The fenced monitor's evidence: whether the trace is transaction-fenced, then each
/// part's report (text, and the `report` object).
fn fenced_text(
    trace: &Trace,
    unfenced: Option<EventId>,
    theorem3: Theorem3,
    sc_ser: &Option<ScSerEvidence>,
    sober: &Option<SoberEvidence>,
) -> (String, Value) {
    let mut s = String::new();
    match unfenced {
        None => {
            let _ = writeln!(
                s,
                "  transaction-fenced: yes (every transaction ends with a fence or rmw)"
            );
        }
        Some(e) => {
            let _ = writeln!(
                s,
                "  transaction-fenced: no — transaction {} ends with {} without a fence",
                trace.txns[trace.events[e].txn].name,
                ev(trace, e)
            );
        }
    }
    let sc = sc_ser.as_ref().map(|e| sc_ser_text(trace, e));
    let so = sober.as_ref().map(|e| sober_text(trace, e));
    let texts = [
        sc.as_ref().map(|p| p.0.as_str()),
        so.as_ref().map(|p| p.0.as_str()),
    ];
    let parts = [
        (
            1,
            "SC-serializability (monitor sc-ser)",
            "sc-ser",
            texts[0],
            "    ",
        ),
        (2, "robustness (SOBER)", "sober", texts[1], "  "),
    ];
    for (n, what, name, found, indent) in parts {
        let hit = if found.is_some() {
            "reports"
        } else {
            "nothing found"
        };
        let _ = writeln!(s, "  part {n}, {what} — {name}: {hit}");
        for l in found.iter().flat_map(|t| t.lines()) {
            let _ = writeln!(s, "{indent}{l}");
        }
    }
    let report = to_json(FencedJson {
        transaction_fenced: unfenced.is_none(),
        unfenced: unfenced.map(|e| ev_json(trace, e)),
        sc_ser: sc.map(|p| p.1),
        sober: so.map(|p| p.1),
        implies_tso_violation: theorem3 == Theorem3::NotTsoSerializable,
    });
    (s, report)
}
