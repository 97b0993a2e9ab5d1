//! An observed run: a trace whose reads carry the values they returned
//! (docs/formats.md "Runs with values"), resolved to reads-from by value — Qadeer's
//! *unambiguous* runs (§3): every write of a location writes a value of its own, never
//! the initial one, so each read names the write it read.

use crate::error::Error;
use crate::trace::{Op, Trace};

/// What an event of a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    /// A locked read-modify-write: reads and writes its location in one step, after
    /// the thread's buffer drains.
    Rmw,
    Fence,
}

impl Kind {
    pub fn reads(self) -> bool {
        matches!(self, Kind::Read | Kind::Rmw)
    }
    pub fn writes(self) -> bool {
        matches!(self, Kind::Write | Kind::Rmw)
    }
}

/// One event of a run.
#[derive(Clone, Debug)]
pub struct RunEvent {
    pub thread: usize,
    pub kind: Kind,
    /// The location (None for fences).
    pub loc: Option<usize>,
    /// For reads and rmws: the write read (None: the initial value).
    pub rf: Option<usize>,
    /// For writes and rmws: the value written; for reads, the value read.
    pub val: String,
    /// For rmws: the value read.
    pub old: Option<String>,
    /// 1-based line in the file (0 when built in memory).
    pub line: usize,
}

/// A run with values, its reads resolved to writes.
#[derive(Clone, Debug)]
pub struct ValueRun {
    pub name: Option<String>,
    pub threads: Vec<String>,
    pub locs: Vec<String>,
    /// The initial value of every location.
    pub init: String,
    /// Events in the file's order.
    pub events: Vec<RunEvent>,
    /// Per location: its writes (and rmws) in the file's order — the *simple* write order.
    pub writes: Vec<Vec<usize>>,
}

/// The value every location holds before the run.
pub const INIT: &str = "0";

/// A value as compared: a decimal integer of any size in its plain form (`007`, `+7`
/// are `7`; `-0` is `0`), anything else as its exact text (`0x10` is not `16`, `1.0`
/// is not `1`) — never as a float (bug: big_values_are_not_rounded_to_floats).
pub fn normalize(v: &str) -> String {
    let (neg, digits) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return v.to_string();
    }
    let digits = digits.trim_start_matches('0');
    match (digits.is_empty(), neg) {
        (true, _) => "0".to_string(),
        (false, true) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    }
}

/// A location's written values (normalized) → their writes.
#[derive(Clone, Default)]
struct ValueIndex {
    ints: rustc_hash::FxHashMap<i128, usize>,
    texts: rustc_hash::FxHashMap<String, usize>,
}

impl ValueIndex {
    fn get(&self, v: &str) -> Option<usize> {
        match v.parse::<i128>() {
            Ok(n) => self.ints.get(&n).copied(),
            Err(_) => self.texts.get(v).copied(),
        }
    }

    fn insert(&mut self, v: &str, w: usize) {
        match v.parse::<i128>() {
            Ok(n) => self.ints.insert(n, w),
            Err(_) => self.texts.insert(v.to_string(), w),
        };
    }
}

impl ValueRun {
    /// The run of a trace: each read and write must carry `val` (an rmw `val: OLD/NEW`),
    /// written values distinct per location and from the initial value, and every read
    /// value written by some write of its location (or the initial value).
    pub fn from_trace(trace: &Trace) -> Result<ValueRun, Error> {
        let bad = |i: usize, message: String| Error::Malformed {
            event: i,
            line: trace.events[i].line as usize,
            message,
        };
        let mut events = Vec::with_capacity(trace.events.len());
        let mut writes: Vec<Vec<usize>> = vec![Vec::new(); trace.vars.len()];
        // Per location: value → its write (integers by number: no key to allocate).
        let mut by_value: Vec<ValueIndex> = vec![ValueIndex::default(); trace.vars.len()];
        for (i, e) in trace.events.iter().enumerate() {
            let loc = e.var.map(|v| v.index());
            let (kind, val, old) = match e.op {
                Op::Fence => (Kind::Fence, String::new(), None),
                op => {
                    let raw = trace.val(i).ok_or_else(|| {
                        bad(
                            i,
                            format!(
                                "`{}` has no `val`: `tsoser consistent` needs the value of every read and write{}",
                                op.name(),
                                if op == Op::Rmw { " (an rmw: `val: OLD/NEW`)" } else { "" }
                            ),
                        )
                    })?;
                    let raw: &str = &raw;
                    let parts: Vec<&str> = raw.split('/').collect();
                    let empty = match op {
                        Op::Rmw => parts.iter().any(|p| p.trim().is_empty()),
                        _ => raw.trim().is_empty(),
                    };
                    if empty {
                        return Err(bad(
                            i,
                            format!("an empty value in `val: {}`", crate::text::excerpt(raw)),
                        ));
                    }
                    match op {
                        Op::Rmw => {
                            // Exactly one `/` (bug: an_rmw_value_has_one_slash: `0/1/2`
                            // was old 0, new `1/2`).
                            let [o, n] = parts[..] else {
                                return Err(bad(i, format!("an rmw's `val` is `OLD/NEW` (the value read, then the value written, one `/`), not `{}`", crate::text::excerpt(raw))));
                            };
                            (Kind::Rmw, normalize(n), Some(normalize(o)))
                        }
                        Op::Rd => (Kind::Read, normalize(raw), None),
                        _ => (Kind::Write, normalize(raw), None),
                    }
                }
            };
            if kind.writes() {
                let x = loc.expect("a write names its location");
                let name = &trace.vars[e.var.unwrap()];
                if val == INIT {
                    return Err(bad(i, format!(
                        "writes the initial value {INIT} to `{name}`: the run is ambiguous (every write must write a value of its own)"
                    )));
                }
                if let Some(j) = by_value[x].get(&val) {
                    let other: &RunEvent = &events[j];
                    return Err(bad(i, format!(
                        "writes {val} to `{name}`, as event #{j} (line {}) does: the run is ambiguous (every write must write a value of its own)",
                        other.line
                    )));
                }
                by_value[x].insert(&val, i);
                writes[x].push(i);
            }
            events.push(RunEvent {
                thread: e.thread.index(),
                kind,
                loc,
                rf: None,
                val,
                old,
                line: e.line as usize,
            });
        }
        for (i, e) in events.iter_mut().enumerate() {
            let read = match e.kind {
                Kind::Read => &e.val,
                Kind::Rmw => e.old.as_ref().expect("an rmw has its old value"),
                _ => continue,
            };
            let x = e.loc.expect("a read names its location");
            if read == INIT {
                continue;
            }
            match by_value[x].get(read) {
                Some(w) if w != i => e.rf = Some(w),
                _ => {
                    return Err(bad(i, format!(
                        "reads {read} from `{}`, a value no write of it produces (nor the initial value {INIT})",
                        trace.vars[trace.events[i].var.unwrap()]
                    )))
                }
            }
        }
        Ok(ValueRun {
            name: trace.name.clone(),
            threads: trace.threads.iter().cloned().collect(),
            locs: trace.vars.iter().cloned().collect(),
            init: INIT.to_string(),
            events,
            writes,
        })
    }

    /// The value an event read (reads and rmws).
    pub fn read_value(&self, e: usize) -> Option<&str> {
        let ev = &self.events[e];
        match ev.kind {
            Kind::Read => Some(&ev.val),
            Kind::Rmw => ev.old.as_deref(),
            _ => None,
        }
    }

    /// The value an event wrote (writes and rmws).
    pub fn written_value(&self, e: usize) -> Option<&str> {
        self.events[e].kind.writes().then_some(&self.events[e].val)
    }

    /// The run as a trace file (docs/formats.md "Runs with values"), compact events in
    /// its order (the trace writer's, [`crate::trace::yaml::event`]).
    pub fn to_yaml(&self) -> String {
        use crate::trace::yaml::{document, event, Fields, Form};
        let events = (0..self.events.len()).map(|e| {
            let (op, loc, val) = self.parts(e);
            let fields = Fields {
                thread: &self.threads[self.events[e].thread],
                txn: None,
                op,
                var: loc,
                val: val.as_deref(),
            };
            event(&fields, Form::Compact)
        });
        document(self.name.as_deref(), events)
    }

    /// An event's op, location and value as written: `rmw`'s value is `OLD/NEW`.
    fn parts(&self, e: usize) -> (&'static str, Option<&str>, Option<String>) {
        let ev = &self.events[e];
        let op = match ev.kind {
            Kind::Read => "rd",
            Kind::Write => "wr",
            Kind::Rmw => "rmw",
            Kind::Fence => "fence",
        };
        let val = match (&ev.old, ev.loc) {
            (_, None) => None,
            (Some(old), _) => Some(format!("{old}/{}", ev.val)),
            (None, _) => Some(ev.val.clone()),
        };
        (op, ev.loc.map(|x| self.locs[x].as_str()), val)
    }

    /// How an event is shown: `#i t: rd x=1` (with its line when known).
    pub fn show(&self, e: usize) -> String {
        let ev = &self.events[e];
        let t = &self.threads[ev.thread];
        let body = match self.parts(e) {
            (op, Some(loc), Some(val)) => format!("{op} {loc}={val}"),
            (op, _, _) => op.to_string(),
        };
        if ev.line > 0 {
            format!("#{e} {t}: {body} (line {})", ev.line)
        } else {
            format!("#{e} {t}: {body}")
        }
    }
}
