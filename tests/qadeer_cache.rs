//! The memory system of Fig. 1 of Qadeer, "Verifying Sequential Consistency on
//! Shared-Memory Multiprocessors by Model Checking" (SRC RR 176, 2001), run at random
//! and checked with `tsoser::consistency`: its runs are SC under the simple write order
//! (§5.2), and a variant that drops invalidations gives nice cycles (§6).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use tsoser::consistency::{self, Edge, Label, Model, ValueRun, Verdict, WriteOrder};

/// `CacheEntry.s` of Fig. 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Inv,
    Shd,
    Exc,
}

/// `CacheEntry` of Fig. 1: data and state.
#[derive(Clone, Copy, Debug)]
struct Entry {
    d: u32,
    s: State,
}

/// `Msg` of Fig. 1: ACKS and ACKX carry location `a` and data `d`, INVAL only `a`.
#[derive(Clone, Copy, Debug)]
enum Msg {
    Acks { a: usize, d: u32 },
    Ackx { a: usize, d: u32 },
    Inval { a: usize },
}

/// The state of Fig. 1: `cache`, `inQ`, `owner` (`None` is the figure's 0).
struct System {
    cache: Vec<Vec<Entry>>,
    in_q: Vec<VecDeque<Msg>>,
    owner: Vec<Option<usize>>,
    /// The broken variant: UPD takes an INVAL off the queue without applying it.
    drop_inval: bool,
}

impl System {
    /// Fig. 1's initial predicate: every line SHD (with the initial value 0), every
    /// inQ empty, every owner a processor.
    fn new(n: usize, owner: Vec<usize>, drop_inval: bool) -> System {
        let line = Entry {
            d: 0,
            s: State::Shd,
        };
        System {
            cache: vec![vec![line; owner.len()]; n],
            in_q: vec![VecDeque::new(); n],
            owner: owner.into_iter().map(Some).collect(),
            drop_inval,
        }
    }

    /// Guard of ⟨R, i, j, k⟩ (k is then `cache[i][j].d`).
    fn can_read(&self, i: usize, j: usize) -> bool {
        self.cache[i][j].s != State::Inv
    }

    /// Guard of ⟨W, i, j, k⟩.
    fn can_write(&self, i: usize, j: usize) -> bool {
        self.cache[i][j].s == State::Exc
    }

    /// ⟨W, i, j, k⟩: `cache[i][j].d := k`.
    fn write(&mut self, i: usize, j: usize, k: u32) {
        assert!(self.can_write(i, j), "W p{i} x{j} without EXC");
        self.cache[i][j].d = k;
    }

    /// Guard of ⟨ACKX, i, j⟩.
    fn can_ackx(&self, i: usize, j: usize) -> bool {
        self.cache[i][j].s != State::Exc && self.owner[j].is_some()
    }

    /// ⟨ACKX, i, j⟩: the owner gives up j at once, i gets ACKX with the data, every
    /// other valid copy an INVAL. (Fig. 1 reads `owner[j]` after zeroing it: the old
    /// owner is meant.)
    fn ackx(&mut self, i: usize, j: usize) {
        assert!(self.can_ackx(i, j), "ACKX p{i} x{j} not enabled");
        let o = self.owner[j].take().expect("guard: owner[j] ≠ 0");
        if o != i {
            self.cache[o][j].s = State::Inv;
        }
        let d = self.cache[o][j].d;
        for p in 0..self.in_q.len() {
            if p == i {
                self.in_q[p].push_back(Msg::Ackx { a: j, d });
            } else if p != o && self.cache[p][j].s != State::Inv {
                self.in_q[p].push_back(Msg::Inval { a: j });
            }
        }
    }

    /// Guard of ⟨ACKS, i, j⟩.
    fn can_acks(&self, i: usize, j: usize) -> bool {
        self.cache[i][j].s == State::Inv && self.owner[j].is_some()
    }

    /// ⟨ACKS, i, j⟩: the owner drops to SHD and sends i ACKS with the data.
    fn acks(&mut self, i: usize, j: usize) {
        assert!(self.can_acks(i, j), "ACKS p{i} x{j} not enabled");
        let o = self.owner[j].take().expect("guard: owner[j] ≠ 0");
        self.cache[o][j].s = State::Shd;
        let d = self.cache[o][j].d;
        self.in_q[i].push_back(Msg::Acks { a: j, d });
    }

    /// ⟨UPD, i⟩: applies the head of inQ[i]; an ACK makes i the owner.
    fn upd(&mut self, i: usize) {
        match self.in_q[i].pop_front().expect("guard: inQ[i] not empty") {
            Msg::Inval { a } if !self.drop_inval => self.cache[i][a].s = State::Inv,
            Msg::Inval { .. } => {} // the bug: the stale SHD copy stays readable
            Msg::Acks { a, d } => {
                self.cache[i][a] = Entry { d, s: State::Shd };
                self.owner[a] = Some(i);
            }
            Msg::Ackx { a, d } => {
                self.cache[i][a] = Entry { d, s: State::Exc };
                self.owner[a] = Some(i);
            }
        }
    }
}

/// One step of a run: a processor's next memory event or an internal event.
#[derive(Clone, Copy)]
enum Step {
    Mem(usize),
    Ackx(usize, usize),
    Acks(usize, usize),
    Upd(usize),
}

/// Scheduling weights (any enabled event may happen; these only shape the runs): a
/// processor's next R/W, an ACK it waits for or is sent, an INVAL (slow, so that stale
/// SHD copies get read), an unrequested ACKX/ACKS weighs 1.
const W_MEM: u32 = 16;
const W_WANTED: u32 = 32;
const W_INVAL: u32 = 1;

/// An event of `enabled` chosen with probability proportional to its weight.
fn pick(rng: &mut ChaCha8Rng, enabled: &[(Step, u32)]) -> Step {
    let mut left = rng.random_range(0..enabled.iter().map(|e| e.1).sum::<u32>());
    for &(step, weight) in enabled {
        if left < weight {
            return step;
        }
        left -= weight;
    }
    unreachable!("the pick is below the total weight")
}

/// A run's trace as tsoser's text, and whether some read returned a value other than
/// the latest write to its location before it (the trace is not serial as it stands).
struct Run {
    yaml: String,
    stale: bool,
}

/// A random run of Fig. 1 from `seed`: 2–3 processors, 1–3 locations, 4–10 reads or
/// writes per processor, each performed when its guard holds, interleaved with the
/// internal events at random. Events are listed as they happen (R and W are atomic in Fig. 1):
/// the file's write order is their temporal order, the simple witness of §5.2.
fn random_run(seed: u64, drop_inval: bool) -> Run {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(2..=3);
    let m = rng.random_range(1..=3);
    let programs: Vec<Vec<(bool, usize)>> = (0..n)
        .map(|_| {
            let len = rng.random_range(4..=10);
            let op = |rng: &mut ChaCha8Rng| (rng.random_bool(0.5), rng.random_range(0..m));
            (0..len).map(|_| op(&mut rng)).collect()
        })
        .collect();
    let owner = (0..m).map(|_| rng.random_range(0..n)).collect();
    let mut sys = System::new(n, owner, drop_inval);
    let mut pc = vec![0; n];
    let mut fresh = vec![0u32; m]; // last value written per location: values are fresh
    let mut yaml = String::from("events:\n");
    let mut stale = false;
    for _ in 0..100_000 {
        if (0..n).all(|i| pc[i] == programs[i].len()) {
            return Run { yaml, stale };
        }
        let mut enabled = Vec::new();
        for i in 0..n {
            let next = programs[i].get(pc[i]).copied();
            if let Some((w, j)) = next {
                if (w && sys.can_write(i, j)) || (!w && sys.can_read(i, j)) {
                    enabled.push((Step::Mem(i), W_MEM));
                }
            }
            for j in 0..m {
                let wanted = |w: bool| if next == Some((w, j)) { W_WANTED } else { 1 };
                if sys.can_ackx(i, j) {
                    enabled.push((Step::Ackx(i, j), wanted(true)));
                }
                if sys.can_acks(i, j) {
                    enabled.push((Step::Acks(i, j), wanted(false)));
                }
            }
            match sys.in_q[i].front() {
                Some(Msg::Inval { .. }) => enabled.push((Step::Upd(i), W_INVAL)),
                Some(_) => enabled.push((Step::Upd(i), W_WANTED)),
                None => {}
            }
        }
        match pick(&mut rng, &enabled) {
            Step::Mem(i) => {
                let (w, j) = programs[i][pc[i]];
                pc[i] += 1;
                if w {
                    fresh[j] += 1;
                    sys.write(i, j, fresh[j]);
                    yaml += &format!("  - \"p{} wr x{} {}\"\n", i + 1, j + 1, fresh[j]);
                } else {
                    let k = sys.cache[i][j].d;
                    stale |= k != fresh[j];
                    yaml += &format!("  - \"p{} rd x{} {k}\"\n", i + 1, j + 1);
                }
            }
            Step::Ackx(i, j) => sys.ackx(i, j),
            Step::Acks(i, j) => sys.acks(i, j),
            Step::Upd(i) => sys.upd(i),
        }
    }
    panic!("seed {seed}: the programs did not finish in 100,000 steps:\n{yaml}");
}

/// The verdict of SC under the simple write order, with the run for messages.
fn check_sc(yaml: &str) -> (ValueRun, Verdict) {
    let trace = tsoser::trace::yaml::parse_trace(yaml)
        .unwrap_or_else(|e| panic!("does not parse: {e}\n{yaml}"));
    let run = ValueRun::from_trace(&trace)
        .unwrap_or_else(|e| panic!("not an unambiguous run: {e}\n{yaml}"));
    let (verdict, _) = consistency::check(
        &run,
        Model::Sc,
        WriteOrder::Simple,
        tsoser::solver::SolverKind::DEFAULT,
        &tsoser::Stop::default(),
    )
    .unwrap_or_else(|e| panic!("no answer: {e}\n{yaml}"));
    (run, verdict)
}

/// Checks a cycle ourselves: it closes, and has at most one edge per processor and
/// per location (§6's nice cycle).
fn assert_nice(edges: &[Edge], yaml: &str) {
    assert!(!edges.is_empty(), "an empty cycle:\n{yaml}");
    let mut labels = Vec::new();
    for (a, b) in edges.iter().zip(edges.iter().cycle().skip(1)) {
        assert_eq!(a.to, b.from, "the cycle does not close:\n{yaml}");
        assert!(
            !labels.contains(&a.label),
            "two edges labelled {:?}:\n{yaml}",
            a.label
        );
        labels.push(a.label);
    }
}

/// A cycle as `#from -[label]-> #to` steps with the events shown.
fn show_cycle(run: &ValueRun, edges: &[Edge]) -> String {
    let label = |l: Label| match l {
        Label::Processor(t) => format!("processor {}", run.threads[t]),
        Label::Location(x) => format!("location {}", run.locs[x]),
    };
    let steps = edges.iter().map(|e| {
        format!(
            "  {} -[{}]-> {}",
            run.show(e.from),
            label(e.label),
            run.show(e.to)
        )
    });
    steps.collect::<Vec<_>>().join("\n")
}

const RUNS: u64 = 2_000;

/// §5.2: "the simple witness is the correct witness" for Fig. 1 — every run is SC
/// with the writes ordered as they happen.
#[test]
fn fig1_cache_runs_are_sc_with_the_simple_write_order() {
    let mut stale = 0;
    for seed in 0..RUNS {
        let run = random_run(seed, false);
        let (_, verdict) = check_sc(&run.yaml);
        assert!(
            matches!(verdict, Verdict::Consistent { .. }),
            "seed {seed}: not SC: {verdict:?}\n{}",
            run.yaml
        );
        stale += u64::from(run.stale);
    }
    eprintln!("{RUNS} runs SC; {stale} with a stale read");
    // Non-vacuous: a read of a SHD copy whose INVAL is still queued, after the new
    // owner's write (§4's example run), needs the reordering of SC.
    assert!(stale >= RUNS / 10, "only {stale} runs with a stale read");
}

/// §6: dropping INVALs breaks SC, and the cycles found are nice (Theorem 6.1).
#[test]
fn fig1_with_an_undelivered_invalidation_has_a_nice_cycle() {
    let mut cycles = 0;
    let mut lengths = std::collections::BTreeMap::new();
    let mut shortest: Option<(usize, String, String)> = None;
    for seed in 0..RUNS {
        let run = random_run(seed, true);
        let (value_run, verdict) = check_sc(&run.yaml);
        let Verdict::Cycle { edges, nice, .. } = verdict else {
            assert!(
                matches!(verdict, Verdict::Consistent { .. }),
                "seed {seed}: {verdict:?}"
            );
            continue;
        };
        assert!(nice, "seed {seed}: a cycle that is not nice\n{}", run.yaml);
        assert_nice(&edges, &run.yaml);
        cycles += 1;
        *lengths.entry(edges.len()).or_insert(0) += 1;
        let size = value_run.events.len();
        if shortest.as_ref().is_none_or(|s| size < s.0) {
            shortest = Some((size, run.yaml, show_cycle(&value_run, &edges)));
        }
    }
    eprintln!("{cycles} of {RUNS} broken runs have a cycle; cycle lengths: {lengths:?}");
    let (size, yaml, cycle) = shortest.expect("no broken run has a cycle");
    eprintln!("shortest ({size} events):\n{yaml}cycle:\n{cycle}");
    assert!(cycles >= RUNS / 50, "only {cycles} cycles");
}

/// The shortest run with a cycle above: p1's INVAL for x3 was dropped, so p1 reads
/// its stale 0 after p2 wrote x3; p2 read x1 = 0 before p1 wrote x1 (store buffering).
const STALE_SHARED_COPY: &str = "events:
  - \"p2 rd x1 0\"
  - \"p2 wr x3 1\"
  - \"p2 rd x1 0\"
  - \"p2 rd x2 0\"
  - \"p1 rd x1 0\"
  - \"p1 wr x1 1\"
  - \"p1 wr x1 2\"
  - \"p1 rd x1 2\"
  - \"p1 rd x2 0\"
  - \"p1 rd x3 0\"
";

#[test]
fn a_stale_shared_copy_reads_an_overwritten_value() {
    let (value_run, verdict) = check_sc(STALE_SHARED_COPY);
    let Verdict::Cycle { edges, nice, .. } = verdict else {
        panic!("no cycle: {verdict:?}");
    };
    eprintln!("{}", show_cycle(&value_run, &edges));
    assert!(nice, "not nice: {edges:?}");
    assert_nice(&edges, STALE_SHARED_COPY);
    assert_eq!(edges.len(), 4);
}
