//! Helpers shared by the integration tests: the literal definitions (all pairs,
//! every execution) that the library's fast paths are compared with.
#![allow(dead_code)]

pub mod png;

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
use tsoser::check::execution::tso_graph_naive;
use tsoser::graph::ConflictGraph;
use tsoser::trace::conflict::{conflict, txn};
use tsoser::trace::exec::{for_each_execution, Execution, Node, Step};
use tsoser::trace::Trace;

/// Runs the `tsoser` binary in the package directory.
/// A source file `name` with `text`, written to a fresh directory of its own (named
/// after `tag`, the process and the name): its path.
pub fn source(tag: &str, name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tsoser-{tag}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub fn tsoser(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tsoser"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

/// Standard output as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `tsoser args` and asserts its exit code, showing both outputs when it differs.
pub fn tsoser_exits(args: &[&str], want: i32) -> std::process::Output {
    let o = tsoser(args);
    assert_eq!(
        o.status.code(),
        Some(want),
        "{args:?}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    o
}

/// Fixed-seed proptest configuration with `cases` cases.
pub fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x7505_e5e7),
        max_shrink_iters: 2000,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

/// Transitive closure of a graph over `n` groups, as a reachability matrix.
pub fn closure(g: &ConflictGraph) -> Vec<Vec<bool>> {
    let n = g.group_count();
    let mut r = vec![vec![false; n]; n];
    for e in g.edges() {
        r[e.from][e.to] = true;
    }
    for k in 0..n {
        let row_k = r[k].clone();
        for row in r.iter_mut() {
            if row[k] {
                for (cell, &via) in row.iter_mut().zip(&row_k) {
                    *cell |= via;
                }
            }
        }
    }
    r
}

/// The literal answer of docs/semantics.md §4: the first execution (in enumeration order)
/// whose all-pairs conflict graph has a cycle, or `None` if every one is acyclic.
pub fn literal_violation(trace: &Trace) -> Option<Execution> {
    let mut found = None;
    for_each_execution(trace, |steps| {
        let exec = Execution::new(trace, steps.to_vec()).unwrap();
        if tso_graph_naive(trace, &exec).is_cyclic() {
            found = Some(exec);
            return false;
        }
        true
    });
    found
}

/// All executions of a trace.
pub fn executions(trace: &Trace) -> Vec<Execution> {
    let mut out = Vec::new();
    for_each_execution(trace, |steps| {
        out.push(Execution::new(trace, steps.to_vec()).unwrap());
        true
    });
    out
}

/// The conflicts present, with the same direction, in every execution (all pairs).
pub fn forced_pairs(trace: &Trace) -> ConflictGraph {
    let execs = executions(trace);
    let mut nodes: Vec<Node> = (0..trace.len()).map(Step::Event).collect();
    nodes.extend(trace.writes().map(Step::Commit));
    let mut g = ConflictGraph::new(trace.txns.len());
    for &a in &nodes {
        for &b in &nodes {
            if a == b {
                continue;
            }
            let always = execs
                .iter()
                .all(|x| x.pos(a) < x.pos(b) && conflict(trace, x, a, b).is_some());
            if always {
                let r = conflict(trace, &execs[0], a, b).unwrap();
                g.add(txn(trace, a), txn(trace, b), a, b, r);
            }
        }
    }
    g
}

/// The paper's Def. 4 taken literally over all pairs: (directed edges as an event
/// graph, sorted undirected edges).
pub fn paper_graph_naive(trace: &Trace) -> (ConflictGraph, Vec<(usize, usize)>) {
    use tsoser::trace::conflict::{same_thread_conflict, Rule};
    use tsoser::trace::Op;
    let writes = |op: Op| matches!(op, Op::Wr | Op::Rmw);
    let mut directed = ConflictGraph::new(trace.len());
    let mut undirected = Vec::new();
    for a in 0..trace.len() {
        for b in a + 1..trace.len() {
            let (ea, eb) = (&trace.events[a], &trace.events[b]);
            if ea.thread == eb.thread {
                if same_thread_conflict(trace, Step::Event(a), Step::Event(b)).is_some() {
                    directed.add(a, b, Step::Event(a), Step::Event(b), Rule::PaperDirected);
                }
                continue;
            }
            let sc = ea.var.is_some() && ea.var == eb.var && (writes(ea.op) || writes(eb.op));
            if !sc {
                continue;
            }
            let fenced = (a + 1..b)
                .any(|f| trace.events[f].thread == ea.thread && trace.events[f].op.drains());
            let forced = fenced
                || ea.op == Op::Rmw
                || (ea.op == Op::Rd && !trace.is_buffered(a) && writes(eb.op));
            if forced {
                directed.add(a, b, Step::Event(a), Step::Event(b), Rule::PaperDirected);
            } else {
                undirected.push((a, b));
            }
        }
    }
    undirected.sort_unstable();
    (directed, undirected)
}

/// An STD line's event as the monitors see it: thread, op, variable, whether it
/// begins a transaction.
#[allow(dead_code)]
pub type Lowered = (usize, tsoser::trace::Op, Option<usize>, bool);

/// The streaming path's lowering ([`tsoser::trace::std_format::lower`]) on `text`: its events as
/// (thread, op, var, begins), or the error's line and message.
#[allow(dead_code)]
pub fn std_scanned(text: &str) -> Result<Vec<Lowered>, String> {
    use tsoser::trace::std_format::{lex::for_each_line, lower::Lowering};
    let mut l = Lowering::default();
    let (mut out, mut evs) = (Vec::new(), Vec::new());
    let mut ambiguous = false;
    for_each_line(text.as_bytes(), |line, t| {
        evs.clear();
        l.lower(line, t, &mut evs)?;
        if l.ambiguous {
            ambiguous = true;
            return Ok(false);
        }
        out.extend(
            evs.iter()
                .map(|e| (e.thread.index(), e.op, e.var.map(|v| v.index()), e.begins)),
        );
        Ok(true)
    })
    .map_err(|e| e.to_string())?;
    // What the stream does then: read the file with the reader.
    if ambiguous {
        return std_built(text);
    }
    Ok(out)
}

/// Whether the streaming lowering hands `text` to the reader (a possible reuse of a
/// block name).
#[allow(dead_code)]
pub fn std_ambiguous(text: &str) -> bool {
    use tsoser::trace::std_format::{lex::for_each_line, lower::Lowering};
    let mut l = Lowering::default();
    let mut evs = Vec::new();
    let _ = for_each_line(text.as_bytes(), |line, t| {
        evs.clear();
        l.lower(line, t, &mut evs)?;
        Ok(!l.ambiguous)
    });
    l.ambiguous
}

/// The trace of `text` by the reader that looks every block name up (`build_looking_up`,
/// trusting nothing the lowering found) in the same shape: `begins` when an event's transaction
/// differs from its thread's previous one (what the monitors are told).
#[allow(dead_code)]
pub fn std_built(text: &str) -> Result<Vec<Lowered>, String> {
    let t =
        tsoser::trace::std_format::build_looking_up(text.as_bytes()).map_err(|e| e.to_string())?;
    let mut current = vec![None; t.threads.len()];
    Ok(t.events
        .iter()
        .map(|e| {
            let begins = current[e.thread.index()] != Some(e.txn);
            current[e.thread.index()] = Some(e.txn);
            (e.thread.index(), e.op, e.var.map(|v| v.index()), begins)
        })
        .collect())
}

/// A failed case with its program printed as `.prog` text after the message, so a
/// shrunk failure reads as a program.
pub fn with_program(
    p: &tsoser::program::Program,
    r: Result<(), proptest::test_runner::TestCaseError>,
) -> Result<(), proptest::test_runner::TestCaseError> {
    r.map_err(|e| {
        proptest::test_runner::TestCaseError::fail(format!(
            "{e}\n{}",
            tsoser::program::print::to_prog(p)
        ))
    })
}

/// Runs `tsoser args` with `input` on its standard input (written from a thread of its
/// own, so a command that answers before reading it all cannot block the test).
pub fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsoser"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = c.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A command that refuses its arguments or stops at an error exits before
        // reading it all: the pipe may close under the write (a race, seen in CI),
        // which is no failure of the test.
        match pipe.write_all(&input) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.unwrap(),
        }
    });
    let out = c.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}
