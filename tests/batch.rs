//! `check`, `monitor` and `graph` on several inputs: files, directories (recursively)
//! and `-`; one line or JSON line a file in input order, a summary, the worst exit code.

use crate::common;

use common::{stderr, stdout, tsoser, tsoser_exits};
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tsoser-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SERIALIZABLE: &str = "events: [\"t0 A wr x\", \"t1 B rd x\"]\n";
const VIOLATION: &str = "events: [\"t0 A wr x\", \"t0 A fence\", \"t1 B rd x\", \"t1 B wr y\", \"t1 B fence\", \"t0 A rd y\"]\n";
const MALFORMED: &str = "events: [\"t0 A wr x\", \"t0 A frob y\"]\n";

/// A directory: a serializable trace, a violation in a subdirectory, an STD file, a
/// malformed trace and a file that is not a trace (skipped).
fn corpus(name: &str) -> PathBuf {
    let d = temp_dir(name);
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(d.join("a.yaml"), SERIALIZABLE).unwrap();
    std::fs::write(d.join("sub/b.yml"), VIOLATION).unwrap();
    std::fs::write(d.join("c.std"), "T0|w(x)|1\nT1|r(x)|2\n").unwrap();
    std::fs::write(d.join("d.yaml"), MALFORMED).unwrap();
    std::fs::write(d.join("notes.txt"), "not a trace").unwrap();
    d
}

fn lines(o: &std::process::Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

#[test]
fn a_directory_is_checked_file_by_file_in_order_with_a_summary() {
    let d = corpus("dir");
    let o = tsoser_exits(&["check", d.to_str().unwrap()], 2);
    let l = lines(&o);
    assert_eq!(l.len(), 5, "{l:?}");
    assert!(
        l[0].ends_with("a.yaml: serializable") || l[0].contains("a.yaml: serializable ("),
        "{l:?}"
    );
    assert!(l[1].contains("c.std: serializable"), "{l:?}");
    assert!(
        l[2].contains("d.yaml: error — ") && l[2].contains("d.yaml:1"),
        "{l:?}"
    );
    assert!(
        l[3].contains("sub/b.yml: violation — cycle A → B → A"),
        "{l:?}"
    );
    assert!(
        l[4].starts_with("4 files: 2 ok, 1 violation, 0 unknown, 1 input error, 0 internal errors"),
        "{l:?}"
    );
    // Without the malformed file the worst is the violation.
    std::fs::remove_file(d.join("d.yaml")).unwrap();
    tsoser_exits(&["check", d.to_str().unwrap()], 1);
}

#[test]
fn json_lines_carry_one_record_a_file_and_the_summary_last() {
    let d = corpus("json");
    let o = tsoser_exits(&["check", d.to_str().unwrap(), "--json", "--stats"], 2);
    let records: Vec<serde_json::Value> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(records.len(), 5);
    assert_eq!(records[0]["verdict"], "serializable");
    assert!(records[0]["stats"]["seconds"]["decide"].is_number());
    assert_eq!(records[2]["verdict"], "error");
    assert_eq!(records[2]["exit"], 2);
    assert_eq!(records[3]["verdict"], "violation");
    assert!(records[3]["witness"]["cycle"].is_array());
    let s = &records[4]["summary"];
    assert_eq!(
        (
            s["files"].as_u64(),
            s["violation"].as_u64(),
            s["input_errors"].as_u64(),
            s["exit"].as_u64()
        ),
        (Some(4), Some(1), Some(1), Some(2))
    );
    assert_eq!(records[4]["schema"], 2);
}

/// Bug batch_json_held_each_record: a batch held each file's JSON line whole until the
/// lines before it were printed (3.1 GiB for `check m7.std g3.std --json --witness
/// full`, a 1.6 GB line). A record past 8 MiB now waits in a temporary file (that it
/// is not held: the unit test of `inputs::Record`); such a record (a whole witness of
/// a 10⁵-event violation, about 15 MB) comes out whole, in its place, the same as
/// the file checked alone.
#[test]
fn a_large_json_record_of_a_batch_comes_out_whole_in_order() {
    let d = temp_dir("large");
    let big = d.join("big.yaml");
    let (big_s, small_s) = (big.to_str().unwrap(), d.join("small.yaml"));
    tsoser_exits(
        &[
            "gen",
            "--events",
            "100000",
            "--schedule",
            "serial",
            "--seed",
            "1",
            "-o",
            big_s,
        ],
        0,
    );
    std::fs::write(&small_s, SERIALIZABLE).unwrap();
    let args = ["--json", "--witness", "full"];
    let o = tsoser_exits(
        &[&["check", big_s, small_s.to_str().unwrap()][..], &args].concat(),
        1,
    );
    let lines = lines(&o);
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0].len() > 8 << 20,
        "the record is {} bytes",
        lines[0].len()
    );
    let batch: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    let alone: serde_json::Value = serde_json::from_str(&stdout(&tsoser_exits(
        &[&["check", big_s][..], &args].concat(),
        1,
    )))
    .unwrap();
    assert_eq!(batch["witness"], alone["witness"]);
    let steps = batch["witness"]["steps"].as_u64().unwrap();
    assert_eq!(
        batch["witness"]["execution"].as_array().unwrap().len() as u64,
        steps
    );
    let small: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(small["verdict"], "serializable");
    assert!(lines[2].contains("\"summary\""));
}

/// Violation (1) is worse than unknown (3), input error (2) worse than both.
#[test]
fn the_exit_code_is_the_worst_verdict() {
    let d = temp_dir("worst");
    // Brute force within 20 execution prefixes: a violation for `v`, unknown for `u`
    // (six buffered stores: far more prefixes).
    std::fs::write(d.join("v.yaml"), VIOLATION).unwrap();
    std::fs::write(
        d.join("u.yaml"),
        "events: [\"t0 A wr x\", \"t0 A wr y\", \"t0 A wr z\", \"t1 B wr u\", \"t1 B wr w\", \"t1 B wr q\", \"t2 C rd x\", \"t2 C rd u\"]\n",
    )
    .unwrap();
    let (v, u) = (d.join("v.yaml"), d.join("u.yaml"));
    let brute = ["--algo", "brute", "--max-executions", "20"];
    let run = |files: &[&Path], want: i32| {
        let mut args: Vec<&str> = vec!["check"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        args.extend(brute);
        tsoser_exits(&args, want)
    };
    let o = run(&[&u, &u], 3);
    assert!(stdout(&o).contains("u.yaml: unknown — "), "{}", stdout(&o));
    let o = run(&[&u, &v], 1);
    assert!(
        stdout(&o).contains("v.yaml: violation — "),
        "{}",
        stdout(&o)
    );
    run(&[&v, &u, &d.join("missing.yaml")], 2);
}

fn with_stdin(args: &[&str], input: &str) -> std::process::Output {
    common::with_stdin(args, input.as_bytes())
}

#[test]
fn standard_input_is_read_as_yaml_or_std() {
    let o = with_stdin(&["check", "-"], VIOLATION);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("-: TSO-serializable"),
        "{}",
        stdout(&o)
    );
    let o = with_stdin(
        &["check", "-", "--json"],
        "T0|begin|1\nT0|w(x)|2\nT0|r(y)|3\nT0|end|4\nT1|begin|5\nT1|w(y)|6\nT1|r(x)|7\nT1|end|8\n",
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["file"].as_str(), v["trace"]["events"].as_u64()),
        (Some("-"), Some(4))
    );
    let o = with_stdin(&["monitor", "-"], SERIALIZABLE);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Errors name standard input and the line.
    let o = with_stdin(&["check", "-"], MALFORMED);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-:1"), "{}", stderr(&o));
    // Beside files, in a batch.
    let d = temp_dir("stdin");
    std::fs::write(d.join("a.yaml"), SERIALIZABLE).unwrap();
    let o = with_stdin(
        &["graph", d.join("a.yaml").to_str().unwrap(), "-"],
        VIOLATION,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let l = lines(&o);
    assert!(
        l[1].starts_with("-: exact semantics") && l[1].contains("have a cycle"),
        "{l:?}"
    );
    let o = with_stdin(&["check", "-", "-"], SERIALIZABLE);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`-` (standard input) can be named once"),
        "{}",
        stderr(&o)
    );
    let o = with_stdin(&["check", "-"], "\u{0}\u{ff}");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn monitor_and_graph_take_directories() {
    let d = corpus("mon");
    let o = tsoser_exits(
        &[
            "monitor",
            d.to_str().unwrap(),
            "--monitor",
            "sc-ser",
            "--json",
        ],
        2,
    );
    let l = lines(&o);
    assert_eq!(l.len(), 5, "{l:?}");
    let first: serde_json::Value = serde_json::from_str(&l[0]).unwrap();
    assert_eq!(first["monitor"], "sc-ser");
    let o = tsoser_exits(
        &[
            "graph",
            d.join("sub").to_str().unwrap(),
            d.join("a.yaml").to_str().unwrap(),
        ],
        1,
    );
    assert_eq!(lines(&o).len(), 3);
}

#[test]
fn bad_batches_are_usage_errors_or_reported() {
    let empty = temp_dir("empty");
    let o = tsoser_exits(&["check", empty.to_str().unwrap()], 2);
    assert!(
        stderr(&o).contains("no trace file (.yaml, .yml, .std) in the directory"),
        "{}",
        stderr(&o)
    );
    let d = corpus("dot");
    let o = tsoser_exits(&["check", d.to_str().unwrap(), "--dot", "/dev/null"], 2);
    assert!(
        stderr(&o).contains("--dot draws the graph of one trace"),
        "{}",
        stderr(&o)
    );
    // Options the one-line text has no room for are refused, not ignored.
    for args in [
        vec!["check", d.to_str().unwrap(), "--stats"],
        vec!["check", d.to_str().unwrap(), "--witness", "full"],
        vec!["monitor", d.to_str().unwrap(), "--stats"],
        vec!["graph", d.to_str().unwrap(), "--stats"],
    ] {
        let o = tsoser_exits(&args, 2);
        assert!(
            stderr(&o).contains("apply to --json only")
                || stderr(&o).contains("applies to --json only"),
            "{}",
            stderr(&o)
        );
    }
    tsoser_exits(&["check", d.to_str().unwrap(), "--stats", "--json"], 2);
    let o = tsoser(&["check"]);
    assert_eq!(o.status.code(), Some(2));
    // One file keeps the single-file output, with its whole witness.
    let o = tsoser_exits(&["check", d.join("sub/b.yml").to_str().unwrap()], 1);
    assert!(stdout(&o).contains("transaction cycle"), "{}", stdout(&o));
    assert!(Path::new(&d).exists());
}
