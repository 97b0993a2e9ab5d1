//! `tsoser check-exec`.

use crate::args::CheckExecArgs;
use crate::out::{self, warn, INTERNAL};
use anyhow::Result;
use std::path::Path;
use tsoser::check::execution;
use tsoser::output::witness::{self};
use tsoser::trace::TxnId;

pub(crate) fn cmd_check_exec(a: &CheckExecArgs) -> Result<u8> {
    let (file, as_json) = (a.file.as_path(), a.json);
    // An STD file has no commits to check (bug: check_exec_on_std_names_the_format: it
    // answered with a YAML syntax error).
    // Its first 4 KiB tell (the reader reads the whole file after).
    let head = |f: &Path| -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut b = Vec::new();
        std::fs::File::open(f)?.take(4096).read_to_end(&mut b)?;
        Ok(b)
    };
    let std = tsoser::trace::is_std_file(file)
        || head(file).is_ok_and(|b| tsoser::trace::looks_like_std(&String::from_utf8_lossy(&b)));
    if std {
        anyhow::bail!(
            "{}: check-exec reads an execution in YAML (a trace with `commit` events); this is an STD trace, which has no commits (check it with `tsoser check`)",
            file.display()
        );
    }
    let (trace, exec) = tsoser::trace::yaml::read_execution(file)?;
    if let Err(why) = tsoser::graph::forced::within_memory(&trace, tsoser::mem::default_room()) {
        outln!("{}: unknown — {why}", file.display());
        return Ok(out::UNKNOWN);
    }
    let cycle = execution::tso_cycle(&trace, &exec);
    let contraction = execution::sc_equivalence_cycle(&trace, &exec);
    if let Some(c) = &cycle {
        if let Err(why) = tsoser::check::verify_execution_cycle(&trace, &exec, c) {
            warn(&format!("tsoser: internal error: the cycle found does not re-check ({why}); please report this execution"));
            return Ok(INTERNAL);
        }
    }
    let fname = file.display().to_string();
    if as_json {
        let edges = |c: &Option<Vec<tsoser::graph::Edge>>, named: bool| {
            c.as_ref().map(|c| {
                c.iter()
                    .map(|e| tsoser::output::json::ExecEdge {
                        from: named.then(|| trace.txns[TxnId::new(e.from)].name.to_string()),
                        to: named.then(|| trace.txns[TxnId::new(e.to)].name.to_string()),
                        src: witness::node_text(&trace, e.src),
                        dst: witness::node_text(&trace, e.dst),
                        src_step: exec.pos(e.src) + 1,
                        dst_step: exec.pos(e.dst) + 1,
                        rule: e.rule,
                        explain: named.then(|| e.rule.explain()),
                    })
                    .collect::<Vec<_>>()
            })
        };
        let out = serde_json::to_value(tsoser::output::json::ExecReport {
            schema: tsoser::output::json::schema(),
            file: fname,
            trace: tsoser::output::json::TraceInfo::of(&trace),
            tso_serializable: cycle.is_none(),
            cycle: edges(&cycle, true),
            sc_equivalent: contraction.is_none(),
            contraction_cycle: edges(&contraction, false),
            commits: witness::placement_json(&trace, &exec),
        })?;
        crate::out::json_out(out)?;
    } else {
        match &cycle {
            None => outln!("{fname}: execution is TSO-serializable: yes"),
            Some(c) => {
                outln!("{fname}: execution is TSO-serializable: NO\ntransaction cycle:");
                out!("{}", witness::cycle_text(&trace, c, Some(&exec)));
            }
        }
        match &contraction {
            None => outln!("SC-equivalent (write-contraction acyclic): yes"),
            Some(c) => {
                outln!("SC-equivalent (write-contraction acyclic): NO — cycle of units (a write with its commit is one unit):");
                for e in c {
                    outln!(
                        "  {} @{} → {} @{}  [{:?}]",
                        witness::node_text(&trace, e.src),
                        exec.pos(e.src) + 1,
                        witness::node_text(&trace, e.dst),
                        exec.pos(e.dst) + 1,
                        e.rule
                    );
                }
            }
        }
    }
    Ok(if cycle.is_some() { 1 } else { 0 })
}
