//! RAPID's STD format: reading, writing, `tsoser convert`, and `check` on `.std` files.

use crate::common;

use common::{config, std_built as built, std_scanned as scanned, stderr, stdout, tsoser};
use proptest::prelude::*;
use tsoser::check::{brute, Semantics};
use tsoser::trace::std_format::{build, to_std};
use tsoser::trace::strategy::{traces, Params};

proptest! {
    #![proptest_config(config(2000))]

    /// Writing a trace as STD and reading it back keeps every event (a fence goes out as
    /// `acq(fence:T)` and comes back a fence), the transactions, and the verdict in both
    /// semantics.
    #[test]
    fn std_round_trip_keeps_events_transactions_and_verdicts(trace in traces(Params { min_events: 3, max_events: 9, ..Params::default() })) {
        let back = build(to_std(&trace).unwrap().as_bytes()).unwrap();
        prop_assert_eq!(back.len(), trace.len());
        for (a, b) in trace.events.iter().zip(&back.events) {
            prop_assert_eq!(&trace.threads[a.thread], &back.threads[b.thread]);
            prop_assert_eq!(a.op, b.op);
            if let Some(v) = a.var {
                prop_assert_eq!(&trace.vars[v], &back.vars[b.var.unwrap()]);
            }
        }
        for i in 0..trace.len() {
            for j in 0..trace.len() {
                let same = trace.events[i].txn == trace.events[j].txn;
                prop_assert_eq!(same, back.events[i].txn == back.events[j].txn);
            }
        }
        for sem in [Semantics::Exact, Semantics::Paper] {
            let (x, y) = match sem {
                Semantics::Exact => (brute::check_exact(&trace, u64::MAX, &tsoser::Stop::default()).0, brute::check_exact(&back, u64::MAX, &tsoser::Stop::default()).0),
                Semantics::Paper => (brute::check_paper(&trace, 1 << 22, &tsoser::Stop::default()).0, brute::check_paper(&back, 1 << 22, &tsoser::Stop::default()).0),
            };
            prop_assert_eq!(x.name(), y.name(), "{:?}", sem);
        }
    }
}

#[test]
fn convert_goes_both_ways_and_check_reads_std() {
    let dir = std::env::temp_dir().join(format!("tsoser-std-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let std_file = dir.join("pool.std");
    let o = tsoser(&[
        "convert",
        "examples/task-pool.yaml",
        "-o",
        std_file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&std_file).unwrap();
    assert!(text.starts_with("a|begin(alpha)|"), "{text}");
    assert!(text.contains("a|r(head)|"), "{text}");
    let o = tsoser(&["check", std_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "the task pool stays a violation");
    let o = tsoser(&["convert", std_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let back = tsoser::trace::yaml::parse_trace(&stdout(&o)).unwrap();
    assert_eq!(back.len(), 12);
    assert_eq!(back.txns.len(), 4);
    let o = tsoser(&["convert", "examples/task-pool.yaml", "--to", "yaml"]);
    assert!(stdout(&o).contains("\"a alpha rd head\""), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_std_lines_exit_2_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("tsoser-stdbad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (body, line, words) in [
        ("T0|r(x)|1\nT0|load(x)|2\n", 2, "unknown operation `load`"),
        ("T0|r(x)|1\n\nT0|w()|3\n", 3, "needs a variable"),
        ("T0|end|1\n", 1, "without a `begin`"),
    ] {
        let f = dir.join("bad.std");
        std::fs::write(&f, body).unwrap();
        for cmd in ["check", "convert"] {
            let o = tsoser(&[cmd, f.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "{body}");
            let err = stderr(&o);
            assert!(err.contains(&format!("bad.std:{line}:")), "{err}");
            assert!(err.contains(words), "{err}");
            assert!(stdout(&o).is_empty());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `trace` written as STD to a file of its own, read back, and every monitor streamed
/// over it: (the file, the trace read back, the streamed outcomes).
fn streamed(
    tag: &str,
    trace: &tsoser::trace::Trace,
) -> (
    std::path::PathBuf,
    tsoser::trace::Trace,
    tsoser::monitor::Streamed,
) {
    use tsoser::monitor::{stream, Kind};
    let dir = std::env::temp_dir().join(format!("tsoser-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.std");
    std::fs::write(&f, to_std(trace).unwrap()).unwrap();
    let back = tsoser::trace::std_format::read_std(&f).unwrap();
    let s = stream(&f, &Kind::ALL, usize::MAX, &Default::default()).unwrap();
    (f, back, s)
}

/// Two blocks of a thread in a row with the same name are one transaction: the stream
/// marks the first block's last event as the end of its transaction, and the monitor,
/// which ended it there, takes it up again at the second block's first event (bug:
/// streaming_a_block_named_again_goes_on). Named `b` instead, the second block is a
/// transaction of its own and there is no cycle.
#[test]
fn streaming_a_block_named_again_goes_on() {
    use tsoser::monitor::{sc_ser::first_violation, stream, Kind, Outcome};
    let dir = std::env::temp_dir().join(format!("tsoser-again-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (second, want) in [("a", Some(4)), ("b", None)] {
        let text = format!(
            "t|begin(a)|1\nt|w(x)|2\nt|end|3\nu|r(x)|4\nu|w(y)|5\nu|r(z)|6\n\
             t|begin({second})|7\nt|w(z)|8\nt|r(y)|9\nt|end|10\n"
        );
        let f = dir.join(format!("{second}.std"));
        std::fs::write(&f, text).unwrap();
        let back = tsoser::trace::std_format::read_std(&f).unwrap();
        assert_eq!(first_violation(&back), want, "{second}");
        let s = stream(&f, &[Kind::ScSer], usize::MAX, &Default::default()).unwrap();
        assert_eq!(
            s.outcomes[0].1,
            want.map_or(Outcome::Clean, Outcome::ScSer),
            "{second}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(config(1500))]

    /// Every monitor streamed over an STD file (one pass, no trace in memory) finds
    /// what it finds on the trace in memory, and sc-ser what `first_violation` does.
    #[test]
    fn streaming_monitors_agree_with_the_in_memory_ones(trace in traces(Params { min_events: 3, max_events: 12, threads: 3, vars: 2, max_txn_len: 4, weights: [5, 5, 1, 2] })) {
        use tsoser::monitor::{run, sc_ser::first_violation, stream, Kind, Outcome};
        let (f, back, s) = streamed("stream", &trace);
        prop_assert_eq!(&s.outcomes, &run(&back, &Kind::ALL));
        let sc = match s.outcomes[0].1 { Outcome::ScSer(i) => Some(i), _ => None };
        prop_assert_eq!(sc, first_violation(&back));
        prop_assert_eq!(first_violation(&back), first_violation(&trace));
        let quiet = stream(&f, &[Kind::ScSer], usize::MAX, &Default::default()).unwrap();
        if quiet.outcomes[0].1 == Outcome::Clean {
            prop_assert_eq!(quiet.events, trace.len());
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// The monitors grown as names appear ([`tsoser::monitor::Monitor::grow`], one
    /// thread or variable at a time, or by jumps) report what monitors built for the
    /// whole trace report; and so does the stream, whose variables grow by doubling
    /// (more than 16 and 32 variables, threads that appear late). Up to 11 threads: the
    /// sc-ser monitor's rows widen past 8 entries. Transactions are hinted to end at
    /// their last event and at random others (`Monitor::end`).
    #[test]
    fn grown_monitors_are_the_monitors_of_the_whole_trace(trace in traces(Params { min_events: 10, max_events: 60, threads: 11, vars: 40, max_txn_len: 4, weights: [5, 5, 1, 2] }), seed in any::<u64>()) {
        use tsoser::monitor::{run, Kind, Suite};
        let mut suite = Suite::new(&Kind::ALL, 0, 0);
        let (mut k, mut m) = (0, 0);
        let mut current = vec![None; trace.threads.len()];
        let mut last = trace.per_txn(0);
        for (i, e) in trace.events.iter().enumerate() {
            last[e.txn] = i;
        }
        for (i, e) in trace.events.iter().enumerate() {
            let (k2, m2) = (k.max(e.thread.index() + 1), m.max(e.var.map_or(0, |x| x.index() + 1)));
            if (k2, m2) != (k, m) {
                suite.grow(k2, m2);
                (k, m) = (k2, m2);
            }
            if current[e.thread.index()] != Some(e.txn) {
                current[e.thread.index()] = Some(e.txn);
                suite.begin(e.thread);
            }
            suite.step(e.thread, e.op, e.var);
            // Each transaction's end, and hints anywhere (taken back by the next event).
            if last[e.txn] == i || seed.rotate_left(i as u32 % 64) & 1 == 1 {
                suite.end(e.thread);
            }
            if suite.all_reported() {
                break;
            }
        }
        prop_assert_eq!(suite.finish(), run(&trace, &Kind::ALL));
        let (_, back, s) = streamed("grow", &trace);
        prop_assert_eq!(&s.outcomes, &run(&back, &Kind::ALL));
        prop_assert_eq!((s.events, s.threads, s.variables), (back.len(), back.threads.len(), back.vars.len()));
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// A named block cut in two (`end`, then `begin(NAME)` again) after some of its
    /// events is still one transaction: the reader builds the trace of the uncut file,
    /// and the stream, whose sc-ser ends the transaction at the cut and takes it up at
    /// its next access, finds what the monitors find on it.
    #[test]
    fn streaming_blocks_cut_in_two_are_one_transaction(trace in traces(Params { min_events: 3, max_events: 12, threads: 3, vars: 2, max_txn_len: 4, weights: [5, 5, 1, 2] }), seed in any::<u64>()) {
        use tsoser::monitor::{run, sc_ser::first_violation, stream, Kind};
        let mut cut = String::new();
        let mut open: std::collections::HashMap<String, String> = Default::default();
        for (i, line) in to_std(&trace).unwrap().lines().enumerate() {
            cut.push_str(line);
            cut.push('\n');
            let mut fields = line.split('|');
            let (th, op) = (fields.next().unwrap(), fields.next().unwrap());
            if let Some(name) = op.strip_prefix("begin(").and_then(|n| n.strip_suffix(')')) {
                open.insert(th.to_string(), name.to_string());
            } else if op == "end" {
                open.remove(th);
            } else if let Some(name) = open.get(th) {
                if seed.rotate_left(i as u32 % 64) & 1 == 1 {
                    cut.push_str(&format!("{th}|end|0\n{th}|begin({name})|0\n"));
                }
            }
        }
        let dir = std::env::temp_dir().join(format!("tsoser-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.std");
        std::fs::write(&f, &cut).unwrap();
        let back = tsoser::trace::std_format::read_std(&f).unwrap();
        prop_assert_eq!(back.txns.len(), trace.txns.len(), "{}", cut);
        prop_assert_eq!(first_violation(&back), first_violation(&trace));
        let s = stream(&f, &Kind::ALL, usize::MAX, &Default::default()).unwrap();
        prop_assert_eq!(&s.outcomes, &run(&back, &Kind::ALL), "{}", cut);
    }
}

/// Names that STD or the compact YAML form cannot carry as they are.
const HOSTILE: &[&str] = &[
    "a b",
    " lead",
    "trail ",
    "q\"uote",
    "back\\slash",
    "pi|pe",
    "#a",
    "fence:a",
    "par(en)",
    "new\nline",
    "tab\there",
    "ünï",
    "",
    "@0",
    "rd",
    "-",
    "true",
    "1.5",
    "x:y",
    "\u{2028}",
];

fn hostile_names() -> impl Strategy<Value = (Vec<usize>, u64)> {
    (
        proptest::collection::vec(0..HOSTILE.len() + 4, 12),
        any::<u64>(),
    )
}

/// The trace with its threads, transactions, variables and values renamed from `pick`
/// (an index past `HOSTILE` keeps the old name).
fn renamed(t: &tsoser::trace::Trace, pick: &[usize], vals: u64) -> Option<tsoser::trace::Trace> {
    let name = |kind: usize, i: usize, old: &str| -> String {
        match HOSTILE.get(pick[(kind * 4 + i) % pick.len()]) {
            Some(h) => format!(
                "{h}{}",
                if i == 0 {
                    String::new()
                } else {
                    format!("{kind}{i}")
                }
            ),
            None => old.to_string(),
        }
    };
    let mut b = tsoser::trace::TraceBuilder::new();
    for (k, e) in t.events.iter().enumerate() {
        let th = name(0, e.thread.index(), &t.threads[e.thread]);
        let tx = name(1, e.txn.index(), &t.txns[e.txn].name);
        let var = e.var.map(|v| name(2, v.index(), &t.vars[v]));
        if [&th, &tx]
            .into_iter()
            .chain(&var)
            .any(|n| n.trim().is_empty())
        {
            return None; // blank names are input errors in every format
        }
        let val = (vals >> (k % 64) & 1 == 1).then(|| HOSTILE[k % HOSTILE.len()].to_string());
        b.push_at(&th, Some(&tx), e.op, var.as_deref(), val.as_deref(), 0);
    }
    b.build().ok()
}

fn same_names(a: &tsoser::trace::Trace, b: &tsoser::trace::Trace) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} events became {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.events.iter().zip(&b.events).enumerate() {
        let same = a.threads[x.thread] == b.threads[y.thread]
            && a.txns[x.txn].name == b.txns[y.txn].name
            && x.op == y.op
            && x.var.map(|v| &a.vars[v]) == y.var.map(|v| &b.vars[v]);
        if !same {
            return Err(format!(
                "event {i}: {:?} became {:?}",
                a.describe(i),
                b.describe(i)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(3000))]

    /// Bug convert_to_std_is_faithful_or_refuses / convert_to_yaml_keeps_every_name: with
    /// hostile names, the YAML writer keeps every name and value; the STD writer either
    /// refuses (naming the event) or writes a file that reads back with the same threads,
    /// transactions (names included), operations, variables and values.
    #[test]
    fn round_trips_keep_hostile_names(trace in traces(Params { min_events: 2, max_events: 8, ..Params::default() }),
                                      (pick, vals) in hostile_names()) {
        let Some(t) = renamed(&trace, &pick, vals) else { return Ok(()) };
        let yaml = tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Compact);
        let back = tsoser::trace::yaml::parse_trace(&yaml);
        prop_assert!(back.is_ok(), "{yaml}: {:?}", back.err());
        let back = back.unwrap();
        prop_assert!(same_names(&t, &back).is_ok(), "{yaml}: {:?}", same_names(&t, &back));
        prop_assert_eq!(t.len(), back.len());
        for i in 0..t.len() {
            prop_assert_eq!(t.val(i), back.val(i), "{}", yaml);
        }
        match to_std(&t) {
            Err(e) => prop_assert!(e.event < t.len()),
            Ok(text) => {
                let back = build(text.as_bytes());
                prop_assert!(back.is_ok(), "{text}: {:?}", back.err());
                let back = back.unwrap();
                prop_assert!(same_names(&t, &back).is_ok(), "{text}: {:?}", same_names(&t, &back));
                prop_assert_eq!(t.len(), back.len());
                for i in 0..t.len() {
                    let want = t.val(i).map_or_else(|| i.to_string(), |v| v.to_string());
                    let got = back.val(i);
                    prop_assert_eq!(Some(want.as_str()), got.as_deref(), "{}", text);
                }
            }
        }
    }
}

/// The three convert bugs of the issue, one by one: a `|` in a name, a thread `#a`, and
/// an rmw of thread `a` on `fence:a` are refused with the event; exit 2.
#[test]
fn convert_to_std_refuses_what_it_cannot_carry() {
    let dir = std::env::temp_dir().join(format!("tsoser-std-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (events, words) in [
        ("[{thread: a, op: rd, var: \"x|y\"}]", "variable name"),
        ("[{thread: \"#a\", op: rd, var: x}]", "thread name"),
        (
            "[{thread: a, op: rmw, var: \"fence:a\"}]",
            "read back as a fence",
        ),
    ] {
        let f = dir.join("t.yaml");
        std::fs::write(&f, format!("events: {events}\n")).unwrap();
        let o = tsoser(&["convert", f.to_str().unwrap(), "--to", "std"]);
        assert_eq!(o.status.code(), Some(2), "{events}: {}", stdout(&o));
        assert!(
            stderr(&o).contains(words) && stderr(&o).contains("event #0"),
            "{}",
            stderr(&o)
        );
    }
}

/// STD lines, valid and not: every operation, blocks named and not, forks and joins,
/// comments, blank lines, junk.
fn std_lines() -> impl Strategy<Value = String> {
    let name = prop_oneof![Just("T0"), Just("T1"), Just("T2"), Just("x"), Just("y")];
    let line = (0..22u8, name.clone(), name).prop_map(|(k, a, b)| match k {
        0 => format!("{a}|r({b})|1"),
        1 => format!("{a}|w({b})|2"),
        2 => format!("{a}|acq({b})|3"),
        3 => format!("{a}|rel(fence:{a})|4"),
        4 => format!("{a}|begin|5"),
        5 => format!("{a}|begin({b}.b1)|6"),
        6 => format!("{a}|end|7"),
        7 => format!("{a}|fork({b})|8"),
        8 => format!("{a}|join({b})|9"),
        9 => format!("{a}|req({b})|10"),
        10 => "# comment".into(),
        11 => "   ".into(),
        12 => format!("{a}|frob({b})|1"),
        13 => format!(" {a} | r( {b} ) "),
        14 => format!("{a}|w({b}|1"),
        // Names `X.N`, which the stream tells apart by their numbers, not hashes.
        16 => format!("{a}|begin({a}.1)|1"),
        17 => format!("{a}|begin({a}.2)|1"),
        18 => format!("{a}|begin({b}.1)|1"),
        19 => format!("{a}|begin({a}.01)|1"),
        20 => format!("{a}|begin(@{b}.0)|1"),
        _ => format!("{a}|begin({a}.b2)|1"),
    });
    proptest::collection::vec(line, 0..30).prop_map(|ls| ls.join("\n"))
}

proptest! {
    #![proptest_config(config(5000))]

    /// Bug none yet (the scanner is new): the streaming path's lowering gives the
    /// reader's events — thread and variable indices in order of appearance, the
    /// transaction starts — and the same errors, line for line.
    #[test]
    fn the_streaming_lowering_is_the_readers(text in std_lines()) {
        prop_assert_eq!(scanned(&text), built(&text), "{}", text);
    }

    /// ... and reads what `convert` writes in one pass, keeping no block names (its
    /// `T.N` names come in increasing order): never handed to the reader.
    #[test]
    fn the_streaming_lowering_reads_written_traces(trace in traces(Params { min_events: 1, max_events: 12, ..Params::default() })) {
        let text = to_std(&trace).unwrap();
        prop_assert_eq!(scanned(&text), built(&text), "{}", text);
        prop_assert!(!common::std_ambiguous(&text), "{}", text);
    }
}

/// The reader (which looks given block names up only once the lowering finds them
/// ambiguous) against the reader that looks every one up: the same events,
/// transactions, names and values, or the same error.
fn the_same_reading(text: &str) -> Result<(), TestCaseError> {
    use tsoser::trace::std_format::build_looking_up;
    let shown = |t: &tsoser::trace::Trace| {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            t.events,
            t.txns,
            t.threads,
            t.vars,
            (0..t.len())
                .map(|i| t.val(i).map(|v| v.to_string()))
                .collect::<Vec<_>>()
        )
    };
    let fast = build(text.as_bytes())
        .map(|t| shown(&t))
        .map_err(|e| e.to_string());
    let slow = build_looking_up(text.as_bytes())
        .map(|t| shown(&t))
        .map_err(|e| e.to_string());
    prop_assert_eq!(fast, slow, "{}", text);
    Ok(())
}

/// STD lines of many blocks named `X.N` and a few other names, so that a reuse (and the
/// reader's switch to looking names up) often comes after transactions it did not look up.
fn std_blocks() -> impl Strategy<Value = String> {
    let block = (0..3u8, 0..6u8, 0..4u8, 0..3u8).prop_map(|(t, n, k, v)| {
        let name = match k {
            0 | 1 => format!("t{t}.{n}"),
            2 => format!("n{n}"),
            _ => String::new(),
        };
        let begin = if name.is_empty() {
            "begin".to_string()
        } else {
            format!("begin({name})")
        };
        format!("t{t}|{begin}|0\nt{t}|r(x{v})|1\nt{t}|w(x{n})|2\nt{t}|end|3")
    });
    proptest::collection::vec(block, 1..12).prop_map(|ls| ls.join("\n"))
}

proptest! {
    #![proptest_config(config(5000))]

    /// Bug none yet (the reader trusts the lowering's names since session 21).
    #[test]
    fn the_reader_looks_names_up_when_it_must(text in std_lines()) {
        the_same_reading(&text)?;
    }

    #[test]
    fn the_reader_looks_block_names_up_when_it_must(text in std_blocks()) {
        the_same_reading(&text)?;
    }
}

/// Lines longer than the scanner's buffer are read whole; invalid UTF-8 is an error
/// naming its line; a last line without a newline is read.
#[test]
fn the_scanner_reads_long_lines_and_refuses_invalid_text() {
    let long = format!("T0|r({})|1\nT1|w(y)|2", "v".repeat(3 << 20));
    assert_eq!(
        scanned(&long).unwrap_err(),
        format!("1: a line longer than {} bytes", 1 << 20)
    );
    let ok = format!("T0|r({})|1\nT1|w(y)|2", "v".repeat(700_000));
    assert_eq!(scanned(&ok), built(&ok));
    let mut bad = b"T0|r(x)|1\nT0|w(\xff)|2\n".to_vec();
    bad.extend_from_slice(b"T0|w(x)|3");
    let r = std::str::from_utf8(&bad).is_err();
    assert!(r);
    use tsoser::trace::std_format::{lex::for_each_line, lower::Lowering};
    let mut l = Lowering::default();
    let mut evs = Vec::new();
    let e = for_each_line(&bad[..], |line, t| {
        evs.clear();
        l.lower(line, t, &mut evs)?;
        Ok(true)
    })
    .unwrap_err();
    assert_eq!(e.to_string(), "2: the line is not valid UTF-8");
}

/// Bug streaming_checks_transaction_names (found by the 10⁶-input fuzz run): a block
/// name used by two threads is an input error for the reader; the streaming lowering,
/// which keeps no names, accepted it and monitored the file. Now it notices the reuse
/// (hashes of the given names) and hands the file to the reader, which refuses it.
#[test]
fn streaming_checks_transaction_names() {
    let text =
        "t0|begin(T0)|0\nt0|w(x)|0\nt1|begin(T0)|3\nt2|r(x)|1\nt1|r(x)|4\nt0|end|5\nt1|end|5\n";
    let want = built(text);
    assert!(
        want.as_ref()
            .unwrap_err()
            .contains("belongs to thread `t0`"),
        "{want:?}"
    );
    assert_eq!(scanned(text), want);
    let dir = std::env::temp_dir().join(format!("tsoser-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("two.std");
    std::fs::write(&f, text).unwrap();
    let o = tsoser(&["monitor", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("two.std:5: event #2: transaction `T0` belongs to thread `t0`"),
        "{}",
        stderr(&o)
    );
    // A name reused by its own thread after another transaction: the same.
    let text = "a|begin(X)|1\na|r(x)|2\na|end|3\na|w(y)|4\na|begin(X)|5\na|r(x)|6\na|end|7\n";
    assert!(built(text).unwrap_err().contains("resumes"));
    assert_eq!(scanned(text), built(text));
}

/// Bug streaming_keeps_an_unnamed_block_apart_from_its_made_up_name: the reader keeps
/// an unnamed block of thread t (shown `t.bN`) apart from the user's `begin(t.bN)`
/// block that follows it (bug an_unnamed_std_block_is_not_the_users_block_of_its_made_up_name),
/// but the streaming lowering compared the names only and made them one transaction:
/// `monitor` on the file counted fewer transactions and named another unfenced event
/// than on the same text read into memory.
#[test]
fn streaming_keeps_an_unnamed_block_apart_from_its_made_up_name() {
    for text in [
        "t|begin|0\nt|w(x)|1\nt|end|2\nu|r(x)|3\nt|begin(t.b1)|4\nt|r(y)|5\nt|end|6\n",
        "t|begin|0\nt|w(x)|1\nt|r(y)|2\nt|end|3\nt|begin(t.b1)|4\nt|r(z)|5\nt|end|6\n",
    ] {
        assert_eq!(scanned(text), built(text), "{text}");
    }
}

/// Bug fast_path_trims_like_the_reader: the byte-level fast path took a field ending
/// in `\x0B` (white space to `str::trim`, not to `u8::is_ascii_whitespace`) as it was,
/// while the general parser trims it: `T\x0B` was one thread on a plain line and `T`
/// on a line that needed trimming elsewhere. Both lines are thread `T` now.
#[test]
fn fast_path_trims_like_the_reader() {
    let text = "T\x0B|w(x)|1\nT|w( x )|2\nT|w(x\u{a0})|3\n";
    let t = tsoser::trace::std_format::build(text.as_bytes()).unwrap();
    assert_eq!(t.threads.len(), 1);
    assert_eq!(t.vars.len(), 1);
    assert_eq!(scanned(text), built(text));
}

/// A directory of its own (named after `tag`) holding `g.std`: `tsoser gen` of 4
/// threads with `args` (3,000 events unless they say), converted.
fn generated_std(tag: &str, args: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("tsoser-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (yaml, file) = (dir.join("g.yaml"), dir.join("g.std"));
    let (y, f) = (yaml.to_str().unwrap(), file.to_str().unwrap());
    let mut gen = vec!["gen", "--threads", "4", "-o", y];
    if !args.contains(&"--events") {
        gen.extend(["--events", "3000"]);
    }
    gen.extend(args);
    common::tsoser_exits(&gen, 0);
    common::tsoser_exits(&["convert", y, "-o", f], 0);
    (dir, file)
}

/// Bug the_fenced_monitor_rechecks_the_later_part_of_a_stream: on a stream the
/// fenced monitor's re-check read the file only up to its parts' first report, so
/// sc-ser's later report was missing from the in-memory run and the command ended in
/// an internal error (exit 4). A generated trace with unnamed blocks showed it.
#[test]
fn the_fenced_monitor_rechecks_the_later_part_of_a_stream() {
    let (dir, std_file) = generated_std("fenced", &["--seed", "2"]);
    let s = std_file.to_str().unwrap();
    // Unnamed blocks: `begin(name)` becomes `begin`.
    let text: String = std::fs::read_to_string(&std_file)
        .unwrap()
        .lines()
        .map(|l| match l.find("|begin(") {
            Some(i) => format!("{}|begin{}\n", &l[..i], &l[l.rfind(')').unwrap() + 1..]),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&std_file, text).unwrap();
    let o = common::tsoser_exits(&["monitor", s, "--monitor", "fenced"], 3);
    assert!(
        stdout(&o).contains("part 1, SC-serializability (monitor sc-ser) — sc-ser: reports"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug monitor_reads_a_named_pipe: a named pipe was read into memory whole (the
/// explanation of a report reads the input again), so a pipe of 10⁹ lines could not be
/// monitored. Now the stream copies it to a temporary file as it reads: the same
/// output, JSON and exit code as the file, errors naming the pipe and its line.
#[test]
fn monitor_streams_a_named_pipe() {
    let (dir, file) = generated_std("pipe", &["--schedule", "serial", "--seed", "3"]);
    let pipe = dir.join("p.std");
    let good = std::fs::read_to_string(&file).unwrap();
    let bad = format!("{good}t0|w(x|7\n");
    for (text, code) in [(good, 1), (bad, 2)] {
        std::fs::write(&file, &text).unwrap();
        let extras: [&[&str]; 3] = [
            &["--monitor", "all"],
            &["--monitor", "all", "--json"],
            &["--monitor", "sober"],
        ];
        for extra in extras {
            let run = |path: &std::path::Path| {
                let mut args = vec!["monitor", path.to_str().unwrap()];
                args.extend(extra);
                tsoser(&args)
            };
            let want = run(&file);
            let _ = std::fs::remove_file(&pipe);
            let made = std::process::Command::new("mkfifo").arg(&pipe).status();
            if !matches!(made, Ok(s) if s.success()) {
                eprintln!("skipped: mkfifo is not available");
                return;
            }
            let (p, t) = (pipe.clone(), text.clone());
            let writer = std::thread::spawn(move || {
                let _ = std::fs::write(&p, t);
            });
            let got = run(&pipe);
            writer.join().unwrap();
            let same = |o: &std::process::Output, f: &std::path::Path| {
                (stdout(o) + &stderr(o)).replace(f.to_str().unwrap(), "FILE")
            };
            assert_eq!(want.status.code(), Some(code), "{}", stderr(&want));
            assert_eq!(got.status.code(), want.status.code(), "{extra:?}");
            assert_eq!(same(&got, &pipe), same(&want, &file), "{extra:?}");
            if code == 1 && extra.len() == 2 {
                // Streamed, not read into memory first.
                let p = (pipe.clone(), text.clone());
                let writer = std::thread::spawn(move || {
                    let _ = std::fs::write(&p.0, p.1);
                });
                let mut args = vec!["monitor", pipe.to_str().unwrap(), "--stats"];
                args.extend(extra);
                let o = tsoser(&args);
                writer.join().unwrap();
                let out = stdout(&o) + &stderr(&o);
                let stats = out.split("stats:\n").nth(1).unwrap_or_default();
                assert!(stats.contains("monitor (streaming)"), "{out}");
                assert!(!stats.contains("parse"), "{out}");
            }
            if code == 2 {
                let line = text.lines().count();
                assert!(
                    stderr(&got).contains(&format!("p.std:{line}")),
                    "{}",
                    stderr(&got)
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--read-threads` (issue 34, item 3): a file of several blocks (STD, and the YAML it
/// was converted from) checked and monitored with its lines lexed on 0 to 3 threads
/// gives the same verdict, the same monitor output and, for a line that does not lex
/// deep in the file, the same error naming it; a count past the limit is a usage error.
#[test]
fn read_threads_change_no_answer() {
    let (dir, file) = generated_std("read-threads", &["--events", "150000", "--seed", "5"]);
    let f = file.to_str().unwrap();
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size > 2 << 20, "{size} bytes: more than two blocks");
    let verdict = |o: &std::process::Output| stdout(o).lines().next().map(str::to_string);
    let want = tsoser(&["check", f, "--read-threads", "0"]);
    for n in ["1", "3"] {
        let got = tsoser(&["check", f, "--read-threads", n]);
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{n}: {}",
            stderr(&got)
        );
        assert_eq!(verdict(&got), verdict(&want), "{n}");
    }
    // The YAML it was converted from: the fast path split as well.
    let y = dir.join("g.yaml");
    let y = y.to_str().unwrap();
    let want = tsoser(&["check", y, "--read-threads", "0"]);
    let got = tsoser(&["check", y, "--read-threads", "2"]);
    assert_eq!(got.status.code(), want.status.code(), "{}", stderr(&got));
    assert_eq!(verdict(&got), verdict(&want));
    let want = tsoser(&["monitor", y, "--monitor", "all", "--read-threads", "0"]);
    let got = tsoser(&["monitor", y, "--monitor", "all", "--read-threads", "2"]);
    assert_eq!(got.status.code(), want.status.code(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    let want = tsoser(&[
        "monitor",
        f,
        "--monitor",
        "all",
        "--json",
        "--read-threads",
        "0",
    ]);
    let got = tsoser(&[
        "monitor",
        f,
        "--monitor",
        "all",
        "--json",
        "--read-threads",
        "2",
    ]);
    assert_eq!(got.status.code(), want.status.code(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    // A bad line after the second block.
    let mut text = std::fs::read_to_string(&file).unwrap();
    let at = text[(5 << 19)..].find('\n').unwrap() + (5 << 19) + 1;
    text.insert_str(at, "t0|w(x|7\n");
    let line = text[..at].lines().count() + 1;
    std::fs::write(&file, &text).unwrap();
    for cmd in ["check", "monitor"] {
        for n in ["0", "2"] {
            let o = common::tsoser_exits(&[cmd, f, "--read-threads", n], 2);
            assert!(
                stderr(&o).contains(&format!("{f}:{line}:")),
                "{cmd} --read-threads {n}: {}",
                stderr(&o)
            );
        }
    }
    let o = common::tsoser_exits(&["check", f, "--read-threads", "65"], 2);
    assert!(
        stderr(&o).contains("--read-threads takes 0 to 64"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `-` (standard input) reads as the file does: STD as it comes (not held whole), the
/// lines lexed on `--read-threads`, with the same trace, verdict and errors — a bad
/// line deep in the input names its line, a byte that is not UTF-8 too (it was one
/// error for the whole input, with no line) — and YAML read whole, its fast path split
/// as well. A first line that needs more than one read (a long comment before it) is
/// sniffed whole.
#[test]
fn standard_input_reads_as_the_file_does() {
    let (dir, file) = generated_std("stdin", &["--events", "150000", "--seed", "6"]);
    let f = file.to_str().unwrap();
    let text = std::fs::read(&file).unwrap();
    let first = |o: &std::process::Output| {
        let out = stdout(o);
        let line = out.lines().next().unwrap_or_default().to_string();
        line.replacen(f, "-", 1)
    };
    let want = tsoser(&["check", f, "--read-threads", "0"]);
    let mut commented = b"# a comment longer than one read of the sniffer\n".repeat(3000);
    commented.extend_from_slice(b"\n  \n");
    commented.extend_from_slice(&text);
    for input in [&text, &commented] {
        for n in ["0", "2"] {
            let got = common::with_stdin(&["check", "-", "--read-threads", n], input);
            assert_eq!(got.status.code(), want.status.code(), "{}", stderr(&got));
            assert_eq!(first(&got), first(&want), "--read-threads {n}");
        }
    }
    let y = dir.join("g.yaml");
    let y_text = std::fs::read(&y).unwrap();
    let y = y.to_str().unwrap();
    let want_y = tsoser(&["check", y, "--json", "--witness", "none"]);
    for n in ["0", "2"] {
        let got = common::with_stdin(
            &[
                "check",
                "-",
                "--json",
                "--witness",
                "none",
                "--read-threads",
                n,
            ],
            &y_text,
        );
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&stdout(&got)).unwrap(),
            serde_json::from_str(&stdout(&want_y)).unwrap(),
        );
        assert_eq!((&a["trace"], &a["verdict"]), (&b["trace"], &b["verdict"]));
    }
    // A bad line, then a byte that is not UTF-8, after the second block.
    let at = text[(5 << 19)..].iter().position(|&b| b == b'\n').unwrap() + (5 << 19) + 1;
    let line = text[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    for bad in [&b"t0|w(x|7\n"[..], b"t0|w(x\xff)|7\n"] {
        let mut broken = text.clone();
        broken.splice(at..at, bad.iter().copied());
        std::fs::write(&file, &broken).unwrap();
        let from_file = common::tsoser_exits(&["check", f], 2);
        let want = stderr(&from_file).replacen(f, "-", 1);
        assert!(want.contains(&format!("-:{line}:")), "{want}");
        for n in ["0", "2"] {
            let got = common::with_stdin(&["check", "-", "--read-threads", n], &broken);
            assert_eq!(got.status.code(), Some(2));
            assert_eq!(stderr(&got), want, "--read-threads {n}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
