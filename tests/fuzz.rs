//! In-process fuzzing of every parser: the YAML trace and execution readers, RAPID's
//! STD reader, the `.prog` and herd litmus parsers, the C reader (on preprocessed
//! text: parsing and lowering), replay schedules, DIMACS, the expected-verdict CSV, and
//! the experiment's declarations and records. Inputs are the
//! repository's own files mutated (bytes flipped, chunks deleted, duplicated or spliced
//! from another file, nesting and numbers blown up) and plain random bytes. Every input must give a value or an error — never a
//! panic — and an input error must name a line inside the input.
//!
//! `TSOSER_FUZZ_ITERS` sets the inputs per parser (default 3,000; CI's run is short,
//! docs/performance.md quotes a long one: `TSOSER_FUZZ_ITERS=1000000 cargo test --release
//! --all-features --test integration fuzz::`).

use crate::common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

fn iters() -> usize {
    std::env::var("TSOSER_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000)
}

/// The seed corpus: every file under `dirs` with one of `exts`.
fn corpus(dirs: &[&str], exts: &[&str]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for d in dirs {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(d);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if exts.contains(&ext) {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    assert!(!out.is_empty(), "no corpus in {dirs:?}");
    out
}

/// One mutation of a corpus file (or random bytes).
fn mutate(rng: &mut ChaCha8Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = corpus[rng.random_range(0..corpus.len())].clone();
    let rounds = rng.random_range(1..6);
    for _ in 0..rounds {
        let len = v.len().max(1);
        match rng.random_range(0..10) {
            0 => {
                // random bytes
                let n = rng.random_range(0..64);
                v = (0..n).map(|_| rng.random()).collect();
            }
            1 if !v.is_empty() => {
                let i = rng.random_range(0..v.len());
                v[i] = rng.random();
            }
            2 if !v.is_empty() => {
                let i = rng.random_range(0..v.len());
                let j = (i + rng.random_range(0..32)).min(v.len());
                v.drain(i..j);
            }
            3 => {
                // duplicate a chunk
                let i = rng.random_range(0..len);
                let j = (i + rng.random_range(0..80)).min(v.len());
                let chunk = v[i.min(v.len())..j].to_vec();
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, chunk);
            }
            4 => {
                // splice a piece of another file
                let o = &corpus[rng.random_range(0..corpus.len())];
                let i = rng.random_range(0..o.len().max(1));
                let j = (i + rng.random_range(0..120)).min(o.len());
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, o[i.min(o.len())..j].iter().copied());
            }
            5 => {
                // nesting blown up
                let open = ["(", "~", "[", "{", "- ", "begin\n", "T0|begin|1\n"];
                let s = open[rng.random_range(0..open.len())].repeat(rng.random_range(1..3000));
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, s.into_bytes());
            }
            6 => {
                // a huge or negative number
                let nums = [
                    "18446744073709551616",
                    "-9223372036854775808",
                    "99999999999999999999999",
                    "-0",
                    "1e400",
                    "0x10",
                    "NaN",
                ];
                let s = nums[rng.random_range(0..nums.len())];
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, s.bytes());
            }
            7 => {
                // control characters, separators, a BOM
                let s = [
                    "\0",
                    "\r",
                    "\u{1b}[2J",
                    "\u{2028}",
                    "\u{feff}",
                    "\t",
                    "|",
                    "\"",
                    "\\",
                ];
                let s = s[rng.random_range(0..s.len())];
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, s.bytes());
            }
            8 => {
                // repeat a line many times
                let text = String::from_utf8_lossy(&v).into_owned();
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let l = lines[rng.random_range(0..lines.len())];
                    let rep = format!("{l}\n").repeat(rng.random_range(1..200));
                    let at = rng.random_range(0..=v.len());
                    v.splice(at..at, rep.into_bytes());
                }
            }
            _ => {
                // swap two lines
                let mut text: Vec<String> = String::from_utf8_lossy(&v)
                    .lines()
                    .map(String::from)
                    .collect();
                if text.len() > 1 {
                    let (a, b) = (
                        rng.random_range(0..text.len()),
                        rng.random_range(0..text.len()),
                    );
                    text.swap(a, b);
                    v = (text.join("\n") + "\n").into_bytes();
                }
            }
        }
    }
    v
}

/// Runs `parse` on `iters()` mutated inputs; `line` gives the line an error names (if
/// any): it must lie inside the input.
fn fuzz<T, E: std::fmt::Display>(
    name: &str,
    seed: u64,
    corpus: &[Vec<u8>],
    parse: impl Fn(&str) -> Result<T, E>,
    line: impl Fn(&E) -> Option<usize>,
) {
    fuzz_with(name, seed, corpus, mutate, parse, line);
}

/// [`fuzz`] with mutations of its own.
fn fuzz_with<T, E: std::fmt::Display>(
    name: &str,
    seed: u64,
    corpus: &[Vec<u8>],
    mutate: impl Fn(&mut ChaCha8Rng, &[Vec<u8>]) -> Vec<u8>,
    parse: impl Fn(&str) -> Result<T, E>,
    line: impl Fn(&E) -> Option<usize>,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut ok, mut err) = (0usize, 0usize);
    for i in 0..iters() {
        let bytes = mutate(&mut rng, corpus);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let got = catch_unwind(AssertUnwindSafe(|| parse(&text)));
        match got {
            Err(_) => panic!("{name}: input {i} panicked:\n{}", text.escape_debug()),
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                err += 1;
                if let Some(l) = line(&e) {
                    let lines = text.split('\n').count().max(1);
                    assert!(
                        l >= 1 && l <= lines,
                        "{name}: input {i}: error names line {l} of {lines}: {e}\n{}",
                        text.escape_debug()
                    );
                }
            }
        }
    }
    eprintln!(
        "fuzz {name}: {} inputs, {ok} parsed, {err} errors",
        ok + err
    );
}

/// The trace written in the canonical and in the compact form, each read back: the
/// same names, transactions and events as `t` (bug: a_name_is_its_text_in_both_forms).
fn both_forms_agree(t: &tsoser::trace::Trace) -> Result<(), String> {
    use tsoser::trace::yaml::parse_trace;
    let to_yaml = |t: &tsoser::trace::Trace| {
        tsoser::trace::yaml::write(t, tsoser::trace::yaml::Form::Canonical)
    };
    let canonical = to_yaml(t);
    for text in [
        canonical.clone(),
        tsoser::trace::yaml::write(t, tsoser::trace::yaml::Form::Compact),
    ] {
        let back = parse_trace(&text).map_err(|e| format!("{e}\n{text}"))?;
        let same = back.threads == t.threads
            && back.vars == t.vars
            && back.txns == t.txns
            && back.len() == t.len()
            && back
                .events
                .iter()
                .zip(&t.events)
                .enumerate()
                .all(|(i, (a, b))| {
                    (a.thread, a.txn, a.op, a.var, back.val(i))
                        == (b.thread, b.txn, b.op, b.var, t.val(i))
                })
            && to_yaml(&back) == canonical;
        if !same {
            return Err(format!("read back differently:\n{text}"));
        }
    }
    Ok(())
}

#[test]
fn fuzz_yaml_traces() {
    let c = corpus(&["examples", "tests/inputs"], &["yaml"]);
    fuzz(
        "yaml trace",
        1,
        &c,
        |text| {
            let t = tsoser::trace::yaml::parse_trace(text)?;
            if let Err(why) = both_forms_agree(&t) {
                panic!("{why}");
            }
            Ok::<_, tsoser::Error>(t)
        },
        |e| e.line(),
    );
}

/// The repository's YAML traces, and each one the full reader reads also written in
/// both of tsoser's forms (the fast path's layout).
fn yaml_corpus_in_both_forms() -> Vec<Vec<u8>> {
    use tsoser::trace::yaml::{parse_trace_general, write, Form};
    let mut c = corpus(&["examples", "tests/inputs"], &["yaml"]);
    let written: Vec<Vec<u8>> = c
        .iter()
        .filter_map(|b| parse_trace_general(std::str::from_utf8(b).ok()?).ok())
        .flat_map(|t| [write(&t, Form::Compact), write(&t, Form::Canonical)])
        .map(String::into_bytes)
        .collect();
    assert!(written.len() > 20, "few traces written: {}", written.len());
    c.extend(written);
    c
}

/// A file read line by line (the fast path streams a regular file) against its text
/// read whole: the same trace with the same lines, or the same error. On the
/// repository's traces written in both forms, whole and mutated (bytes that are not
/// UTF-8 among them: the error reading them gives).
#[test]
fn yaml_files_read_as_their_text() {
    use tsoser::trace::yaml::{parse_trace_general, read_trace, write, Form};
    let mut c = yaml_corpus_in_both_forms();
    // Files longer than the scanner's 1 MiB buffer, so lines cross its refills.
    use tsoser::trace::gen::{generate, Shape};
    for seed in 0..2 {
        let t = generate(&Shape::realistic(60_000), seed);
        c.push(write(&t, Form::Compact).into_bytes());
        c.push(write(&t, Form::Canonical).into_bytes());
    }
    let dir = std::env::temp_dir().join(format!("tsoser-yaml-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.yaml");
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (mut fast, mut bad) = (0, 0);
    for n in 0..(iters() / 20).max(500) {
        let mut bytes = match n % 3 {
            0 => c[rng.random_range(0..c.len())].clone(),
            _ => mutate(&mut rng, &c),
        };
        if n % 7 == 0 && !bytes.is_empty() {
            let at = rng.random_range(0..bytes.len());
            bytes[at] = 0xff;
        }
        std::fs::write(&path, &bytes).unwrap();
        let got = read_trace(&path);
        match std::str::from_utf8(&bytes) {
            // The full reader is the oracle (the fast path agrees with it on text:
            // fuzz_yaml_fast_path_agrees_with_the_full_reader).
            Ok(text) => match (got, parse_trace_general(text)) {
                (Ok(a), Ok(b)) => {
                    let same = (&a.name, &a.threads, &a.vars, &a.txns, &a.events, &a.values)
                        == (&b.name, &b.threads, &b.vars, &b.txns, &b.events, &b.values);
                    assert!(
                        same,
                        "the file reads differently from\n{}",
                        text.escape_debug()
                    );
                    fast += usize::from(
                        text.contains("\nevents:\n  - ") || text.starts_with("events:\n  - "),
                    );
                }
                (Err(a), Err(b)) => assert_eq!(
                    a.error.to_string(),
                    b.to_string(),
                    "{}",
                    text.escape_debug()
                ),
                (a, b) => panic!(
                    "one refuses:\n{}\nfile: {:?}\ntext: {:?}",
                    text.escape_debug(),
                    a.err().map(|e| e.to_string()),
                    b.err().map(|e| e.to_string())
                ),
            },
            Err(_) => {
                bad += 1;
                // Named by the line of its first bad byte, as the STD readers do.
                let e = got.expect_err("a file that is not UTF-8");
                let at = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
                let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                assert_eq!(
                    e.error.to_string(),
                    format!("{line}: the line is not valid UTF-8")
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(fast > 50 && bad > 50, "fast layout {fast}, not UTF-8 {bad}");
}

/// The line fast path against the full YAML reader: on the repository's traces, each
/// also written in both of tsoser's forms (the fast path's layout), mutated, both
/// give the same trace with the same lines, or the same error.
#[test]
fn fuzz_yaml_fast_path_agrees_with_the_full_reader() {
    use tsoser::trace::split::BLOCK;
    use tsoser::trace::yaml::{fast_path_in_blocks, parse_trace, parse_trace_general};
    let c = yaml_corpus_in_both_forms();
    let fast_layout = std::cell::Cell::new(0usize);
    // Half the inputs take one light edit, which mostly keeps the layout: a line
    // dropped, doubled or swapped with another, or a byte of a line changed.
    let light = |rng: &mut ChaCha8Rng, c: &[Vec<u8>]| {
        if rng.random_bool(0.5) {
            return mutate(rng, c);
        }
        let src = &c[rng.random_range(0..c.len())];
        let mut lines: Vec<Vec<u8>> = src.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        let i = rng.random_range(0..lines.len());
        let j = rng.random_range(0..lines.len());
        match rng.random_range(0..4) {
            0 => drop(lines.remove(i)),
            1 => lines.insert(j, lines[i].clone()),
            2 => lines.swap(i, j),
            _ if !lines[i].is_empty() => {
                let k = rng.random_range(0..lines[i].len());
                let set = b" \"{}:,#-\\ar0x";
                lines[i][k] = set[rng.random_range(0..set.len())];
            }
            _ => {}
        }
        lines.join(&b'\n')
    };
    fuzz_with(
        "yaml fast path",
        11,
        &c,
        light,
        |text| {
            // The fast path split at line boundaries: what it reads on one thread.
            let (lexers, block) = (1 + text.len() % 3, 1 + text.len() % 61);
            let split = fast_path_in_blocks(text.as_bytes(), lexers, block);
            let one = fast_path_in_blocks(text.as_bytes(), 0, BLOCK);
            assert!(
                same_reading(&split, &one),
                "{lexers} lexers, blocks of {block}: {}",
                text.escape_debug()
            );
            let (fast, full) = (parse_trace(text), parse_trace_general(text));
            match (&fast, &full) {
                (Ok(a), Ok(b)) => {
                    let same = (&a.name, &a.threads, &a.vars, &a.txns, &a.events, &a.values)
                        == (&b.name, &b.threads, &b.vars, &b.txns, &b.events, &b.values);
                    assert!(same, "the two readers differ on\n{}", text.escape_debug());
                    let head = text
                        .strip_prefix("name: ")
                        .map_or(Some(text), |r| r.split_once('\n').map(|(_, rest)| rest));
                    if head.is_some_and(|h| h.starts_with("events:\n  - ")) {
                        fast_layout.set(fast_layout.get() + 1);
                    }
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{}", text.escape_debug())
                }
                _ => panic!(
                    "one reader refuses:\n{}\nfast: {:?}\nfull: {:?}",
                    text.escape_debug(),
                    fast.as_ref().err(),
                    full.as_ref().err()
                ),
            }
            fast
        },
        |e| e.line(),
    );
    eprintln!(
        "fuzz yaml fast path: {} inputs read in its layout",
        fast_layout.get()
    );
    assert!(
        fast_layout.get() > iters() / 20,
        "few inputs in the fast layout: {}",
        fast_layout.get()
    );
}

/// Whether two readings give the same trace (names, events, lines, values), the same
/// error, or both leave the input to the full reader.
fn same_reading(
    a: &Option<Result<tsoser::trace::Trace, tsoser::error::Error>>,
    b: &Option<Result<tsoser::trace::Trace, tsoser::error::Error>>,
) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Ok(a)), Some(Ok(b))) => {
            (&a.name, &a.threads, &a.vars, &a.txns, &a.events, &a.values)
                == (&b.name, &b.threads, &b.vars, &b.txns, &b.events, &b.values)
        }
        (Some(Err(a)), Some(Err(b))) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// Traces whose names are random scalars (numbers, floats, booleans, nulls, made-up
/// transaction names, random text), written with each event at random in the compact
/// or the mapping form: read, they equal the trace written in either form.
#[test]
fn fuzz_yaml_names_in_both_forms() {
    const SCALARS: &[&str] = &[
        "0x10",
        "16",
        "016",
        "2.50",
        "1e3",
        "0o17",
        "True",
        "yes",
        "null",
        "~",
        ".NaN",
        "-.inf",
        "@0",
        "@1",
        "t0.b1",
        "rd",
        "commit",
        "-0",
        "+1",
        "1_000",
        "0b11",
        "100000000000000000000000000000000000000001",
        "18446744073709551616",
        "a b",
        "x:y",
        "#c",
        "'q'",
        "\"q\"",
        "é",
        "[a]",
        "{a}",
        "*a",
        "&a",
        "!t",
        "%p",
        "`b`",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let name = |rng: &mut ChaCha8Rng| -> String {
        if rng.random_bool(0.6) {
            SCALARS[rng.random_range(0..SCALARS.len())].to_string()
        } else {
            let n = rng.random_range(1..5);
            (0..n)
                .map(|_| char::from(rng.random_range(0x21u8..0x7f)))
                .collect()
        }
    };
    let mut checked = 0;
    for i in 0..iters() {
        let events = rng.random_range(1..8);
        let mut b = tsoser::trace::TraceBuilder::new();
        let mut mapping = Vec::new();
        for k in 0..events {
            let (th, x) = (name(&mut rng), name(&mut rng));
            let txn = rng.random_bool(0.5).then(|| name(&mut rng));
            let op = [
                tsoser::trace::Op::Rd,
                tsoser::trace::Op::Wr,
                tsoser::trace::Op::Rmw,
            ][rng.random_range(0..3)];
            let val = rng.random_bool(0.3).then(|| name(&mut rng));
            b.push_at(&th, txn.as_deref(), op, Some(&x), val.as_deref(), k + 2);
            mapping.push((th, txn, op, x, val));
        }
        // Random names may break the rules (a transaction on two threads): skip those.
        let Ok(t) = b.build() else { continue };
        if let Err(why) = both_forms_agree(&t) {
            panic!("input {i}: {why}");
        }
        // Each event at random in either form, by hand: the compact words quoted.
        let quote = tsoser::trace::yaml::quote;
        let mut text = String::from("events:\n");
        for (th, txn, op, x, val) in &mapping {
            let words: Vec<&str> = std::iter::once(th.as_str())
                .chain(txn.as_deref())
                .chain([op.name(), x.as_str()])
                .chain(val.as_deref())
                .collect();
            let plain = words
                .iter()
                .all(|w| !w.contains(char::is_whitespace) && !w.starts_with('#'))
                && (txn.is_some() || !tsoser::trace::yaml::is_op_word(x));
            if plain && rng.random_bool(0.5) {
                text.push_str(&format!("  - {}\n", quote(&words.join(" "))));
            } else {
                let txn = txn
                    .as_deref()
                    .map(|t| format!(", txn: {}", quote(t)))
                    .unwrap_or_default();
                let val = val
                    .as_deref()
                    .map(|v| format!(", val: {}", quote(v)))
                    .unwrap_or_default();
                text.push_str(&format!(
                    "  - {{thread: {}{txn}, op: {op}, var: {}{val}}}\n",
                    quote(th),
                    quote(x)
                ));
            }
        }
        let back = tsoser::trace::yaml::parse_trace(&text)
            .unwrap_or_else(|e| panic!("input {i}: {e}\n{text}"));
        assert_eq!(
            tsoser::trace::yaml::write(&back, tsoser::trace::yaml::Form::Canonical),
            tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Canonical),
            "input {i}:\n{text}"
        );
        checked += 1;
    }
    eprintln!("fuzz yaml names: {checked} traces read alike in both forms");
}

/// Runs with values (`tsoser consistent`): the trace reader, the value checks, and
/// both models' checks on whatever parses (a witness that does not re-check fails).
#[test]
fn fuzz_value_runs() {
    use tsoser::consistency::{self, gen, Model, ValueRun, WriteOrder};
    let mut c = corpus(&["examples", "tests/inputs/consistent"], &["yaml"]);
    for (seed, model) in [(1, Model::Sc), (2, Model::Tso), (3, Model::Tso)] {
        let p = gen::Params {
            threads: 3,
            locs: 2,
            per_thread: 4,
            writes: 40,
            rmws: 10,
            fences: 10,
            model,
        };
        c.push(gen::run(&p, seed).to_yaml().into_bytes());
    }
    fuzz(
        "value run",
        9,
        &c,
        |text| {
            let trace = tsoser::trace::yaml::parse_trace(text)?;
            let run = ValueRun::from_trace(&trace)?;
            for model in [Model::Sc, Model::Tso] {
                if let Err(e) = consistency::check(
                    &run,
                    model,
                    WriteOrder::Simple,
                    tsoser::solver::SolverKind::DEFAULT,
                    &tsoser::Stop::default(),
                ) {
                    panic!("{e}");
                }
                // Any write order, on inputs small enough to stay fast.
                if run.events.len() <= 200 {
                    if let Err(e) = consistency::check(
                        &run,
                        model,
                        WriteOrder::Any,
                        tsoser::solver::SolverKind::DEFAULT,
                        &tsoser::Stop::default(),
                    ) {
                        panic!("{e}");
                    }
                }
            }
            Ok::<_, tsoser::error::Error>(())
        },
        |e| e.line(),
    );
}

#[test]
fn fuzz_yaml_executions() {
    let c = corpus(&["examples", "tests/inputs"], &["yaml"]);
    fuzz(
        "yaml execution",
        2,
        &c,
        tsoser::trace::yaml::parse_execution,
        |e| e.line(),
    );
}

/// STD texts: the examples written out, plus hand-written blocks, fork/join and fences.
fn std_corpus() -> Vec<Vec<u8>> {
    corpus(&["examples"], &["yaml"])
        .iter()
        .filter_map(|y| tsoser::trace::yaml::parse_trace(&String::from_utf8_lossy(y)).ok())
        .filter_map(|t| tsoser::trace::std_format::to_std(&t).ok())
        .map(String::into_bytes)
        .chain([
            b"T0|fork(T1)|1\nT1|begin(a)|2\nT1|r(x)|3\nT1|end|4\nT0|join(T1)|5\nT0|req(l)|6\nT0|acq(l)|7\nT0|rel(l)|8\n".to_vec(),
            b"T0|fork(T1)|1\nT1|begin(a)|2\nT1|r(x)|3\nT1|end|4\nT0|join(T1)|5\nT0|req(l)|6\nT0|acq(l)|7\nT0|rel(fence:T0)|8\n".to_vec(),
        ])
        .collect()
}

#[test]
fn fuzz_std() {
    fuzz(
        "std",
        3,
        &std_corpus(),
        |s| tsoser::trace::std_format::build(s.as_bytes()),
        |e| e.line(),
    );
}

/// The reader split at line boundaries against one thread on mutated STD texts cut in
/// small blocks and lexed on one to three threads: the same lines, numbers and first
/// error, and never a panic.
#[test]
fn fuzz_std_split() {
    use tsoser::trace::split::BLOCK;
    use tsoser::trace::std_format::{lex, split};
    let lines = |s: &str, lexers: usize, block: usize| {
        let mut out = Vec::new();
        let end = split::lexed_in_blocks(
            s.as_bytes(),
            lex::MAX_LINE,
            lex::stream_not_utf8,
            lexers,
            block,
            |l: &lex::Line<'_>| {
                out.push(format!("{l:?}"));
                Ok(true)
            },
        );
        (out, end.map_err(|e| e.to_string()))
    };
    fuzz(
        "std split",
        34,
        &std_corpus(),
        |s| {
            let (lexers, block) = (1 + s.len() % 3, 1 + s.len() % 61);
            let one = lines(s, 0, BLOCK);
            assert_eq!(
                lines(s, lexers, block),
                one,
                "{lexers} lexers, blocks of {block}"
            );
            one.1
        },
        |_| None,
    );
}

/// The streaming path's scanner and lowering against the reader on mutated STD texts:
/// the same events or the same error, and never a panic.
#[test]
fn fuzz_std_streaming() {
    fuzz(
        "std streaming",
        12,
        &std_corpus(),
        |s| {
            let (a, b) = (common::std_scanned(s), common::std_built(s));
            assert_eq!(a, b, "the scanner and the reader differ");
            a
        },
        |_| None,
    );
}

/// Standard input: YAML and STD texts mixed, each read as its first line says —
/// through `read_input_on` on the bytes (as `-` is read: STD as it comes, on 0 or 2
/// lexers, from a reader giving a few bytes at a time), which must give what the text
/// read whole gives (`parse_text`): the same trace or the same error; bytes that are
/// not UTF-8 are refused naming the line of the first.
#[test]
fn fuzz_standard_input_texts() {
    let mut c = corpus(&["examples"], &["yaml"]);
    let std: Vec<Vec<u8>> = c
        .iter()
        .filter_map(|y| tsoser::trace::yaml::parse_trace(&String::from_utf8_lossy(y)).ok())
        .filter_map(|t| tsoser::trace::std_format::to_std(&t).ok())
        .map(String::into_bytes)
        .collect();
    c.extend(std);
    fuzz("stdin", 11, &c, tsoser::trace::parse_text, |e| e.line());
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut bad = 0;
    for i in 0..iters() {
        let mut bytes = mutate(&mut rng, &c);
        if i % 9 == 0 && !bytes.is_empty() {
            let at = rng.random_range(0..bytes.len());
            bytes[at] = 0xfe;
        }
        let lexers = 2 * (i % 2);
        let step = rng.random_range(1..64);
        let got = catch_unwind(AssertUnwindSafe(|| {
            tsoser::trace::read_input_on(Trickle(&bytes, step), lexers)
        }))
        .unwrap_or_else(|_| panic!("input {i} panicked:\n{}", bytes.escape_ascii()));
        let want = match std::str::from_utf8(&bytes) {
            Ok(text) => tsoser::trace::parse_text(text),
            Err(e) => {
                bad += 1;
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                // STD is read as it comes: an error of an earlier line comes first.
                let e = got.expect_err("not UTF-8");
                assert!(
                    e.to_string() == tsoser::text::not_utf8(line).to_string()
                        || e.line().is_some_and(|l| l < line),
                    "input {i}: {e}, the first bad byte on line {line}"
                );
                continue;
            }
        };
        match (got, want) {
            (Ok(a), Ok(b)) => assert!(
                (&a.name, &a.threads, &a.vars, &a.txns, &a.events, &a.values)
                    == (&b.name, &b.threads, &b.vars, &b.txns, &b.events, &b.values),
                "input {i} reads differently:\n{}",
                bytes.escape_ascii()
            ),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "input {i}"),
            (a, b) => panic!(
                "input {i}: {:?} against {:?}:\n{}",
                a.err().map(|e| e.to_string()),
                b.err().map(|e| e.to_string()),
                bytes.escape_ascii()
            ),
        }
    }
    assert!(bad > 0);
}

/// A reader giving at most `.1` bytes a call.
struct Trickle<'a>(&'a [u8], usize);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn fuzz_programs() {
    let c = corpus(&["examples/programs", "tests/inputs/programs"], &["prog"]);
    fuzz(
        "prog",
        4,
        &c,
        tsoser::program::parse::parse_program,
        named_line,
    );
}

/// The line a program reader's error names, 0 included (`Error::line` hides a 0): a
/// message must never say `file:0:`.
fn named_line(e: &tsoser::error::Error) -> Option<usize> {
    match e {
        tsoser::error::Error::Format { line, .. } => Some(*line),
        e => e.line(),
    }
}

/// Dat3M's x86 litmus tests (`TSOSER_DAT3M`, else `../shared/external/dat3m-x86`
/// beside the checkout), sorted; none when absent.
fn dat3m_litmus() -> Vec<Vec<u8>> {
    let dat3m = std::env::var_os("TSOSER_DAT3M")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external/dat3m-x86")
        });
    let Ok(rd) = std::fs::read_dir(dat3m.join("litmus")) else {
        eprintln!(
            "SKIPPED: Dat3M's litmus tests are not at {}",
            dat3m.display()
        );
        return Vec::new();
    };
    let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn fuzz_litmus() {
    let mut c = corpus(&["examples/programs", "tests/inputs/programs"], &["litmus"]);
    c.extend(dat3m_litmus().into_iter().take(60));
    fuzz(
        "litmus",
        5,
        &c,
        tsoser::program::litmus::parse_litmus,
        named_line,
    );
}

#[test]
fn fuzz_replay_schedules() {
    let p = tsoser::program::read_program(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/programs/sb.prog"
    )))
    .unwrap();
    let c = vec![
        b"P0 P0 P1 P1 c:P0:x c:P1:y".to_vec(),
        b"P1 c:P1:y P0".to_vec(),
    ];
    fuzz(
        "replay schedule",
        6,
        &c,
        |s| tsoser::explore::replay::parse_schedule(&p, s),
        |_| None,
    );
}

#[test]
fn fuzz_dimacs() {
    let c = corpus(&["encodings/golden", "examples/cnf"], &["cnf"]);
    fuzz("dimacs", 7, &c, tsoser::cnf::Cnf::parse, |e| e.line());
}

#[test]
fn fuzz_experiment_declarations() {
    let c = corpus(&["examples/experiments"], &["toml"]);
    fuzz(
        "experiment toml",
        8,
        &c,
        tsoser::experiment::Config::parse,
        |e| e.line(),
    );
}

#[test]
fn fuzz_experiment_records() {
    let c = corpus(&["tests/inputs"], &["jsonl"]);
    fuzz(
        "experiment records",
        9,
        &c,
        tsoser::experiment::records::parse_records,
        |e| e.line(),
    );
}

#[test]
fn fuzz_expected_csv() {
    let c = vec![
        b"litmus/A.litmus,1\nlitmus/B.litmus,0\n".to_vec(),
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/inputs/suite-bad.csv"
        ))
        .unwrap(),
    ];
    fuzz(
        "expected csv",
        8,
        &c,
        tsoser::explore::suite::parse_expected,
        |e| e.line(),
    );
}

/// What a cut may not lose: threads, each thread's instructions, loads (and locked
/// read-modify-writes), and the condition's atoms.
fn litmus_size(p: &tsoser::program::Program) -> (usize, Vec<usize>, usize, usize) {
    use tsoser::program::{Cond, Instr};
    fn atoms(c: &Cond) -> usize {
        match c {
            Cond::True => 0,
            Cond::Atom(..) => 1,
            Cond::Not(c) => atoms(c),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().map(atoms).sum(),
        }
    }
    let code = p.threads.iter().map(|t| t.code.len()).collect();
    let loads = p
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .filter(|i| matches!(i, Instr::Load(..) | Instr::Rmw(..)))
        .count();
    let cond = p.final_cond.as_ref().map_or(0, |f| atoms(&f.cond));
    (p.threads.len(), code, loads, cond)
}

/// The test `orig` (which parses to `p`) cut to `cut`: an error naming a line of `cut`,
/// or a test as large as `p` in threads, instructions per thread and loads, and in
/// condition atoms unless the cut fell inside the condition after a part that is a
/// whole condition itself — herd's grammar lets `forall a /\ (b \/ c)` stop after `a`,
/// so the kept condition's text must then be a proper prefix of the original's.
fn check_cut(p: &tsoser::program::Program, cut: &str) -> Result<(), String> {
    let got = catch_unwind(AssertUnwindSafe(|| {
        tsoser::program::litmus::parse_litmus(cut)
    }))
    .map_err(|_| "panicked".to_string())?;
    let q = match got {
        Err(e) => {
            let lines = cut.split('\n').count().max(1);
            return match e.line() {
                Some(l) if l <= lines => Ok(()),
                _ => Err(format!("error names no line of the {lines}: {e}")),
            };
        }
        Ok(q) => q,
    };
    let (a, b) = (litmus_size(p), litmus_size(&q));
    if b.0 < a.0 || b.1.len() < a.1.len() || b.1.iter().zip(&a.1).any(|(x, y)| x < y) {
        return Err(format!(
            "Ok with fewer threads or instructions: {b:?} < {a:?}"
        ));
    }
    if b.2 < a.2 {
        return Err(format!("Ok with fewer loads: {} < {}", b.2, a.2));
    }
    if b.3 < a.3 {
        let (pt, qt) = match (&p.final_cond, &q.final_cond) {
            (Some(f), Some(g)) => (f.text.trim(), g.text.trim()),
            _ => return Err("Ok without the condition".into()),
        };
        if qt.len() >= pt.len() || !pt.starts_with(qt) {
            return Err(format!(
                "Ok with fewer condition atoms ({} < {}) and not a prefix of the condition: `{qt}` of `{pt}`",
                b.3, a.3
            ));
        }
    }
    Ok(())
}

/// bug: truncated_litmus_tests_are_errors — an unterminated `(*`, `<<`, string or
/// bracket, a cut `locations [x;`, or a missing condition swallowed the rest of the
/// test and explored what was left ("robust: yes", exit 0). Every litmus test of the
/// corpus (ours and all of Dat3M's when present) is cut at every byte; then
/// `TSOSER_FUZZ_ITERS` mutants that parse are cut at a random byte. `TSOSER_CUTS=all`
/// cuts every mutant at every byte.
#[test]
fn truncated_litmus_tests_are_errors() {
    let mut c = corpus(&["examples/programs", "tests/inputs/suite"], &["litmus"]);
    c.extend(dat3m_litmus());
    let t0 = std::time::Instant::now();
    let mut checked = 0usize;
    let cut_all = |text: &str, p: &tsoser::program::Program, checked: &mut usize| {
        for i in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            *checked += 1;
            if let Err(e) = check_cut(p, &text[..i]) {
                panic!("cut at byte {i}: {e}\n{}", text[..i].escape_debug());
            }
        }
    };
    let mut whole = 0;
    for bytes in &c {
        let text = String::from_utf8_lossy(bytes);
        let Ok(p) = tsoser::program::litmus::parse_litmus(&text) else {
            continue;
        };
        whole += 1;
        cut_all(&text, &p, &mut checked);
    }
    let exhaustive = checked;
    let all = std::env::var("TSOSER_CUTS").is_ok_and(|v| v == "all");
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut parsed = 0;
    for _ in 0..iters() {
        let bytes = mutate(&mut rng, &c);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let Ok(Ok(p)) = catch_unwind(AssertUnwindSafe(|| {
            tsoser::program::litmus::parse_litmus(&text)
        })) else {
            continue;
        };
        parsed += 1;
        if all {
            cut_all(&text, &p, &mut checked);
            continue;
        }
        let mut i = rng.random_range(0..=text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        checked += 1;
        if let Err(e) = check_cut(&p, &text[..i]) {
            panic!("mutant cut at byte {i}: {e}\n{}", text.escape_debug());
        }
    }
    assert_eq!(whole, c.len(), "the corpus parses");
    eprintln!(
        "truncated litmus: {whole} tests cut at every byte ({exhaustive} cuts), {parsed} of {} mutants parsed and cut ({} cuts); {:.1} s",
        iters(),
        checked - exhaustive,
        t0.elapsed().as_secs_f64()
    );
}

/// The external suites beside the checkout (`../shared/external/NAME`), when there.
fn beside(name: &str) -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/external")
        .join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    eprintln!("SKIPPED: {} is not there", dir.display());
    None
}

/// Every file under `dir` (in subfolders too) with one of `exts`, sorted.
fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files_under(&p, exts, out);
        } else if exts.contains(&p.extension().and_then(|e| e.to_str()).unwrap_or("")) {
            out.push(p);
        }
    }
}

/// The C corpus: `examples/c` (every `.c` and `.i`, subfolders included), the TACAS'15
/// sources and SV-COMP's pthread `.i` tasks when they are beside the checkout; and each
/// `.c` file preprocessed once more, when it preprocesses here (`cpp` on the PATH).
fn c_corpus() -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c");
    files_under(&examples, &["c", "i"], &mut paths);
    if let Some(d) = beside("tacas15-c") {
        files_under(&d.join("benchmarks"), &["c"], &mut paths);
    }
    let external = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external");
    let mut svcomp: Vec<_> = std::fs::read_dir(&external)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("svcomp-pthread-"))
        })
        .collect();
    svcomp.sort();
    if svcomp.is_empty() {
        eprintln!("SKIPPED: no SV-COMP pthread suite beside the checkout");
    }
    for d in svcomp {
        let mut is = Vec::new();
        files_under(&d, &["i"], &mut is);
        // Not their subfolders' (none today): the suite's own tasks.
        paths.extend(is.into_iter().filter(|p| p.parent() == Some(d.as_path())));
    }
    let mut out = Vec::new();
    let mut preprocessed = 0;
    for p in &paths {
        out.push(std::fs::read(p).unwrap());
        if p.extension().is_some_and(|e| e == "c") {
            let o = tsoser::program::ReadOptions::default();
            if let Ok(text) = tsoser::program::c::preprocess::preprocess(p, &o) {
                out.push(text.into_bytes());
                preprocessed += 1;
            }
        }
    }
    assert!(!out.is_empty(), "no C corpus in {}", examples.display());
    eprintln!(
        "C corpus: {} files, {preprocessed} of them also preprocessed",
        paths.len()
    );
    out
}

/// What the engines index by, in range: each instruction's registers, locations,
/// arrays, threads and jump target, and one source line per instruction.
fn well_formed(p: &tsoser::program::Program) -> Result<(), String> {
    use tsoser::program::Instr;
    if p.init.len() != p.locs.len() {
        return Err("an initial value per location".into());
    }
    if let Some(a) = p
        .arrays
        .iter()
        .find(|a| a.base + a.len as usize > p.locs.len())
    {
        return Err(format!("array {} past the locations", a.name));
    }
    for (t, th) in p.threads.iter().enumerate() {
        if th.lines.len() != th.code.len() || th.reg_init.len() != th.regs.len() {
            return Err(format!(
                "thread {}: a line per instruction, an initial value per register",
                th.name
            ));
        }
        for (pc, i) in th.code.iter().enumerate() {
            if let Instr::Branch(_, l) = i {
                if *l > th.code.len() {
                    return Err(format!("thread {} @{pc}: a jump to @{l}", th.name));
                }
            }
            if let Instr::Join(u) | Instr::Spawn(u) = i {
                if *u >= p.threads.len() {
                    return Err(format!("thread {} @{pc}: thread {u}", th.name));
                }
            }
            // Shows every operand: indexes registers, locations, arrays and threads.
            let shown = catch_unwind(AssertUnwindSafe(|| p.show_instr(t, pc)));
            if shown.is_err() {
                return Err(format!(
                    "thread {} @{pc}: {i:?} names what is not there",
                    th.name
                ));
            }
        }
    }
    Ok(())
}

/// Where a C reading error points, checked: `name:line:col` with the line and column
/// inside the input when the error names the input itself, else a file one of the
/// input's line markers names, at a line from 1.
fn c_error_place(text: &str, name: &str, e: &tsoser::error::FileError) -> Result<(), String> {
    let tsoser::error::Error::Source {
        file, line, column, ..
    } = &e.error
    else {
        return Err("an error with no place".into());
    };
    if *line == 0 || *column == 0 {
        return Err(format!("line {line}, column {column}"));
    }
    if file == name {
        let l = text
            .split('\n')
            .nth(line - 1)
            .ok_or("a line past the input")?;
        if *column > l.len() + 1 {
            return Err(format!("column {column} of a line of {} bytes", l.len()));
        }
    } else if !text.contains(&format!("\"{file}\"")) {
        return Err(format!("`{file}`, which no line marker names"));
    }
    Ok(())
}

/// A mutation of a C file that mostly keeps it C, so that the lowering (not only the
/// parser) sees it: within the program's own text (after the last line marker, past
/// the headers), words swapped for other words of it, numbers for extreme ones,
/// operators for others, statements deleted or repeated, and constructs the lowering
/// treats specially put in.
fn mutate_c(rng: &mut ChaCha8Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    const NUMBERS: &[&str] = &[
        "0",
        "1",
        "-1",
        "2",
        "3",
        "7",
        "64",
        "255",
        "1000",
        "1000000",
        "2147483647",
        "-2147483648",
        "4294967296",
        "9223372036854775807",
        "0x7fffffffffffffff",
        "18446744073709551615u",
        "0x100000000",
        "010",
        "'a'",
        "1L",
    ];
    const OPERATORS: &[&str] = &[
        "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "==", "!=", "<", ">", "<=",
        ">=", "=", "+=", "-=", "++", "--", "!", "~", "?", ":", ",", "->", ".",
    ];
    const SNIPPETS: &[&str] = &[
        "pthread_create(&t, 0, f, 0);",
        "pthread_join(t, 0);",
        "pthread_exit(0);",
        "pthread_mutex_lock(&m);",
        "pthread_mutex_unlock(&m);",
        "goto L;",
        "L: ;",
        "while (1) ;",
        "for (;;) { break; }",
        "for (int i = 0; i < 1000000; i++) x++;",
        "do { continue; } while (x);",
        "switch (x) { case 1: x = 2; default: break; }",
        "__VERIFIER_atomic_begin();",
        "__VERIFIER_atomic_end();",
        "__VERIFIER_assume(x);",
        "__VERIFIER_assert(x);",
        "assert(x);",
        "reach_error();",
        "abort();",
        "x = __VERIFIER_nondet_int();",
        "p = malloc(sizeof(int));",
        "free(p);",
        "p = calloc(3, sizeof *p);",
        "struct s *q = malloc(2 * sizeof(struct s)); q[1].n = q; free(q);",
        "_Atomic int z; z = 1; z++; z -= 2;",
        "atomic_int w; w *= 2;",
        "__atomic_fetch_add(&z, 1, 5);",
        "*p = 1;",
        "*(int *)0 = 1;",
        "x = x / 0;",
        "x = a[1000000];",
        "x = *&*&x;",
        "__sync_synchronize();",
        "__sync_fetch_and_add(&x, 1);",
        "__sync_bool_compare_and_swap(&x, 0, 1);",
        "__atomic_store_n(&x, 1, 5);",
        "asm volatile(\"mfence\" ::: \"memory\");",
        "return;",
        "return 0;",
        "main();",
        "int x;",
        "static int y = 1;",
        "struct s { int a; struct s *n; } v;",
        "int a[4] = {1, 2};",
        "typedef int T;",
        "enum e { A, B = 5 };",
        "void f(void) { f(); }",
        "{",
        "}",
        "(",
        ")",
    ];
    let mut v = corpus[rng.random_range(0..corpus.len())].clone();
    let rounds = rng.random_range(1..4);
    for _ in 0..rounds {
        let text = String::from_utf8_lossy(&v).into_owned();
        // The program's own text: after the last line marker (or all of it).
        let from = text.match_indices("\n#").last().map_or(0, |(i, _)| {
            i + 1 + text[i + 1..].find('\n').unwrap_or(text.len() - i - 1)
        });
        let body = &text[from..];
        let words: Vec<(usize, &str)> = body
            .match_indices(|c: char| c.is_ascii_alphanumeric() || c == '_')
            .fold(Vec::new(), |mut acc: Vec<(usize, usize)>, (i, _)| {
                match acc.last_mut() {
                    Some(w) if w.0 + w.1 == i => w.1 += 1,
                    _ => acc.push((i, 1)),
                }
                acc
            })
            .into_iter()
            .map(|(i, n)| (from + i, &text[from + i..from + i + n]))
            .collect();
        let at = |rng: &mut ChaCha8Rng| {
            let mut i = rng.random_range(from..=text.len());
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let (range, with): (std::ops::Range<usize>, String) = match rng.random_range(0..6) {
            0 | 1 if !words.is_empty() => {
                // a word for another (a number for an extreme one)
                let (i, w) = words[rng.random_range(0..words.len())];
                let new = if w.starts_with(|c: char| c.is_ascii_digit()) && rng.random_bool(0.7) {
                    NUMBERS[rng.random_range(0..NUMBERS.len())].to_string()
                } else {
                    words[rng.random_range(0..words.len())].1.to_string()
                };
                (i..i + w.len(), new)
            }
            2 => {
                // an operator for another
                let ops: Vec<usize> = body
                    .match_indices(|c: char| "+-*/%<>&|^=!~?:,.".contains(c))
                    .map(|(i, _)| from + i)
                    .collect();
                if ops.is_empty() {
                    continue;
                }
                let i = ops[rng.random_range(0..ops.len())];
                (
                    i..i + 1,
                    OPERATORS[rng.random_range(0..OPERATORS.len())].to_string(),
                )
            }
            3 | 4 => {
                // a statement deleted, or repeated elsewhere
                let semis: Vec<usize> = body.match_indices(';').map(|(i, _)| from + i).collect();
                if semis.len() < 2 {
                    continue;
                }
                let k = rng.random_range(1..semis.len());
                let stmt = (semis[k - 1] + 1)..(semis[k] + 1);
                if rng.random_bool(0.5) {
                    (stmt, String::new())
                } else {
                    let i = at(rng);
                    (i..i, text[stmt].repeat(rng.random_range(1..4)))
                }
            }
            _ => {
                let i = at(rng);
                (
                    i..i,
                    SNIPPETS[rng.random_range(0..SNIPPETS.len())].to_string(),
                )
            }
        };
        let mut t = text;
        t.replace_range(range, &with);
        v = t.into_bytes();
    }
    v
}

/// The C reader on preprocessed text (`read_preprocessed`, no preprocessor started):
/// never a panic or a stack overflow, an error at `name:line:col` inside the input (or
/// a file its markers name), and a program the engines can index.
#[test]
fn fuzz_c() {
    use tsoser::program::c::read_preprocessed;
    const NAME: &str = "fuzz.i";
    let c = c_corpus();
    let t0 = std::time::Instant::now();
    fuzz_with(
        "c",
        14,
        &c,
        |rng, c| match rng.random_range(0..3) {
            0 => mutate(rng, c),
            _ => mutate_c(rng, c),
        },
        |text| {
            let got = read_preprocessed(text, NAME, &Default::default());
            match &got {
                Ok(p) => {
                    if let Err(why) = well_formed(p) {
                        panic!("the program read is not well formed: {why}");
                    }
                }
                Err(e) => {
                    if let Err(why) = c_error_place(text, NAME, e) {
                        panic!("the error's place: {why}: {e}");
                    }
                }
            }
            got
        },
        |e| match &e.error {
            tsoser::error::Error::Source { file, line, .. } if file == NAME => Some(*line),
            _ => None,
        },
    );
    eprintln!("fuzz c: {:.1} s", t0.elapsed().as_secs_f64());
}

/// bug: deeply_nested_c_is_an_input_error — about 3,000 parentheses (5,000 blocks,
/// 9,000 terms of a sum, 8,000 `sizeof`s, …) overflowed the stack in lang-c's parser
/// or the lowering, and aborted the process; fuzz_c's blown-up nesting found it. Each
/// construct nested 5,000 deep is an error naming its place, and nested as deep as
/// the reader accepts, it reads (to a program or an error) on a 2 MiB stack, a
/// spawned thread's (a `suite` worker's).
#[test]
fn deeply_nested_c_is_an_input_error() {
    use tsoser::program::c::read_preprocessed;
    const NAME: &str = "deep.i";
    let head = "struct s { struct s *s; int v; } s; int x; int a[1]; int *p;\nint f(int y) { return y; }\n";
    let body = |pre: &str, open: &str, core: &str, close: &str, n: usize| {
        format!(
            "{head}int main(void) {{\n{pre}{}{core}{};\nreturn 0;\n}}\n",
            open.repeat(n),
            close.repeat(n)
        )
    };
    let shapes: &[(&str, &str, &str, &str)] = &[
        ("x = ", "(", "1", ")"),
        ("x = ", "- ", "1", ""),
        ("x = ", "!", "1", ""),
        ("x = ", "(int)", "1", ""),
        ("x = ", "sizeof ", "x", ""),
        ("x = ", "1 + ", "1", ""),
        ("x = ", "x = ", "1", ""),
        ("x = ", "x ? 1 : ", "1", ""),
        ("x = ", "f(", "1", ")"),
        ("x = ", "a[", "0", "]"),
        ("x = ", "*&", "x", ""),
        ("x = s", ".s->s", "", ""),
        ("x = ", "({ ", "1; ", "})"),
        ("", "{ ", "x = 1; ", "}"),
        ("", "if (x) ", "x = 1", ""),
        ("", "if (x) x = 1; else ", "x = 2", ""),
        ("", "while (x) ", "x = 0", ""),
        ("", "l: ", "x = 1", ""),
        ("int ", "(", "y", ")"),
        ("int ", "*", "y", ""),
        ("int y = ", "{", "1", "}"),
        ("struct t ", "{ struct ", "{ int v; } ", "v; }"),
    ];
    let run = |text: String| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let got = read_preprocessed(&text, NAME, &Default::default()).err();
                if let Some(e) = &got {
                    if let Err(why) = c_error_place(&text, NAME, e) {
                        panic!("the error's place: {why}: {e}");
                    }
                }
                got.map(|e| e.to_string())
            })
            .unwrap()
            .join()
            .unwrap()
    };
    let too_deep = |e: &Option<String>| e.as_ref().is_some_and(|e| e.contains("deep ("));
    for &(pre, open, core, close) in shapes {
        let deep = run(body(pre, open, core, close, 5000));
        assert!(too_deep(&deep), "`{open}` × 5000: {deep:?}");
        // The deepest the reader takes: parsed and lowered without overflow.
        let n = (1..300)
            .rev()
            .find(|&n| !too_deep(&run(body(pre, open, core, close, n))))
            .unwrap_or_else(|| panic!("`{open}` is too deep at any depth"));
        assert!(n >= 20, "`{open}` only {n} deep");
    }
}
