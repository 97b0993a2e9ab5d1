//! The reader: `yaml_serde`'s deserializer driven by visitors that take every name
//! and value as the scalar's text.

use crate::error::{Error, FileError};
use crate::trace::exec::{Execution, Step};
use crate::trace::ThreadId;
use crate::trace::TiVec;
use crate::trace::{Op, Trace, TraceBuilder};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;

/// An op as written in a file: a trace op or, in executions, a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawOp {
    Trace(Op),
    Commit,
}

/// One event as read, before names are interned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawItem {
    pub thread: String,
    pub txn: Option<String>,
    pub op: RawOp,
    pub var: Option<String>,
    pub val: Option<String>,
}

pub(super) fn op_of(word: &str) -> Option<RawOp> {
    Some(match word {
        "rd" => RawOp::Trace(Op::Rd),
        "wr" => RawOp::Trace(Op::Wr),
        "fence" => RawOp::Trace(Op::Fence),
        "rmw" => RawOp::Trace(Op::Rmw),
        "commit" => RawOp::Commit,
        _ => return None,
    })
}

const OPS: &str = "one of rd, wr, fence, rmw";

/// Whether a word is an op of the compact form (`commit` included).
pub fn is_op_word(w: &str) -> bool {
    op_of(w).is_some()
}

/// The op a misspelt word most likely meant: one edit away (`wrr`, `rdd`, `fense`).
fn near_op(w: &str) -> Option<&'static str> {
    let w: Vec<char> = w.chars().collect();
    ["rd", "wr", "fence", "rmw", "commit"]
        .into_iter()
        .find(|op| {
            let op: Vec<char> = op.chars().collect();
            if w.len().abs_diff(op.len()) > 1 {
                return false;
            }
            // Levenshtein distance, one row at a time.
            let mut row: Vec<usize> = (0..=op.len()).collect();
            for (i, a) in w.iter().enumerate() {
                let mut next = vec![i + 1];
                for (j, b) in op.iter().enumerate() {
                    let sub = row[j] + usize::from(a != b);
                    next.push(sub.min(row[j + 1] + 1).min(next[j] + 1));
                }
                row = next;
            }
            row[op.len()] <= 1
        })
}

/// Parses the compact form `thread txn op [var] [val]` or `thread op [var] [val]`.
pub(crate) fn parse_compact(s: &str) -> Result<RawItem, String> {
    let c = compact_fields(s)?;
    Ok(RawItem {
        thread: c.thread.to_string(),
        txn: c.txn.map(str::to_string),
        op: c.op,
        var: c.var.map(str::to_string),
        val: c.val.map(str::to_string),
    })
}

/// One compact event's fields, borrowed from its text.
pub(crate) struct Compact<'a> {
    pub thread: &'a str,
    pub txn: Option<&'a str>,
    pub op: RawOp,
    pub var: Option<&'a str>,
    pub val: Option<&'a str>,
}

/// [`parse_compact`] without copying: an event has at most five words, so only more
/// (an error) collects them.
pub(crate) fn compact_fields(s: &str) -> Result<Compact<'_>, String> {
    compact_fields_in(s, s.split_whitespace())
}

/// [`compact_fields`] of `s` cut into `words` by the caller, as `split_whitespace`
/// would (the fast path cuts printable ASCII at spaces alone).
pub(super) fn compact_fields_in<'a>(
    s: &'a str,
    words: impl Iterator<Item = &'a str>,
) -> Result<Compact<'a>, String> {
    let mut first = [""; 5];
    let mut n = 0;
    for w in words {
        if n == first.len() {
            let words: Vec<&str> = s.split_whitespace().collect();
            return compact_words(s, &words);
        }
        first[n] = w;
        n += 1;
    }
    compact_words(s, &first[..n])
}

fn compact_words<'a>(s: &str, words: &[&'a str]) -> Result<Compact<'a>, String> {
    if words.len() < 2 {
        return Err(format!("compact event `{s}` needs at least `thread op`"));
    }
    // `thread txn op ...` is preferred when the third word is an op.
    let (txn, op_at) = if words.len() >= 3 && op_of(words[2]).is_some() {
        (Some(words[1]), 2)
    } else if op_of(words[1]).is_some() {
        (None, 1)
    } else {
        // The misspelt op: the second or third word that is one edit from an op
        // (bug: a_misspelt_op_is_named: `a wrr x` named `x`), else the second word.
        let found = words[1..words.len().min(3)]
            .iter()
            .find_map(|w| near_op(w).map(|op| (*w, Some(op))))
            .unwrap_or((words[1], None));
        let hint = found
            .1
            .map(|op| format!("; did you mean `{op}`?"))
            .unwrap_or_default();
        return Err(format!(
            "unknown op `{}` in `{}` (expected {OPS} as the second or third word{hint})",
            crate::text::excerpt(found.0),
            crate::text::excerpt(s)
        ));
    };
    let op = op_of(words[op_at]).unwrap();
    let rest = &words[op_at + 1..];
    let needs_var = !matches!(op, RawOp::Trace(Op::Fence));
    let (var, val) = match (op, rest) {
        (RawOp::Commit, []) => (None, None),
        (RawOp::Commit, [v]) => (Some(*v), None),
        (_, []) if needs_var => {
            return Err(format!("`{}` needs a variable in `{s}`", words[op_at]))
        }
        (_, []) => (None, None),
        (_, [v]) if needs_var => (Some(*v), None),
        (_, [v, x]) if needs_var => (Some(*v), Some(*x)),
        (_, _) if !needs_var => return Err(format!("`fence` takes no variable in `{s}`")),
        _ => {
            return Err(format!(
                "too many words in `{s}` (expected `thread [txn] op var [val]`)"
            ))
        }
    };
    Ok(Compact {
        thread: words[0],
        txn,
        op,
        var,
        val,
    })
}

/// A scalar read as the exact text written: `0x10`, `2.50`, `True`, `null` are names
/// like any other, in both forms (bug: a_name_is_its_text_in_both_forms); a list or a
/// mapping is refused. The field's name is for messages.
struct Text(&'static str);

impl<'de> DeserializeSeed<'de> for Text {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for Text {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a plain name for `{}`", self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
}

/// A name field: its text, not blank.
fn name_text<'de, A: MapAccess<'de>>(map: &mut A, key: &'static str) -> Result<String, A::Error> {
    let s = map.next_value_seed(Text(key))?;
    if s.trim().is_empty() {
        return Err(de::Error::custom(format!("`{key}` is empty")));
    }
    Ok(s)
}

/// One event: a compact string or a mapping.
struct EventSeed;

impl<'de> DeserializeSeed<'de> for EventSeed {
    type Value = RawItem;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<RawItem, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventSeed {
    type Value = RawItem;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an event: a mapping or a compact string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawItem, E> {
        parse_compact(v).map_err(E::custom)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawItem, A::Error> {
        let mut item = RawItem {
            thread: String::new(),
            txn: None,
            op: RawOp::Trace(Op::Fence),
            var: None,
            val: None,
        };
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key_seed(Text("key"))? {
            let key: &'static str = match key.as_str() {
                "thread" => "thread",
                "txn" => "txn",
                "op" => "op",
                "var" => "var",
                "val" => "val",
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown field `{}` (expected thread, txn, op, var, val)",
                        crate::text::excerpt(other)
                    )))
                }
            };
            if seen.contains(&key) {
                return Err(de::Error::custom(format!("`{key}` given twice")));
            }
            seen.push(key);
            match key {
                "thread" => item.thread = name_text(&mut map, key)?,
                "txn" => item.txn = Some(name_text(&mut map, key)?),
                "op" => {
                    let w = name_text(&mut map, key)?;
                    item.op = op_of(&w).ok_or_else(|| {
                        de::Error::custom(format!(
                            "unknown op `{}` (expected {OPS})",
                            crate::text::excerpt(&w)
                        ))
                    })?;
                }
                "var" => item.var = Some(name_text(&mut map, key)?),
                _ => item.val = Some(map.next_value_seed(Text("val"))?),
            }
        }
        if !seen.contains(&"thread") {
            return Err(de::Error::custom("missing field `thread`"));
        }
        if !seen.contains(&"op") {
            return Err(de::Error::custom("missing field `op`"));
        }
        match item.op {
            RawOp::Trace(Op::Fence) if item.var.is_some() => {
                Err(de::Error::custom("`fence` takes no `var`"))
            }
            RawOp::Trace(op) if op != Op::Fence && item.var.is_none() => {
                Err(de::Error::custom(format!("`{op}` needs a `var`")))
            }
            _ => Ok(item),
        }
    }
}

/// The event list; `at` holds the index of the event being read.
struct EventsSeed<'a> {
    at: &'a Cell<Option<usize>>,
}

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = Vec<RawItem>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<RawItem>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_> {
    type Value = Vec<RawItem>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("`events` as a list")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<RawItem>, E> {
        Ok(Vec::new())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RawItem>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.at.set(Some(items.len()));
            match seq.next_element_seed(EventSeed)? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        self.at.set(None);
        Ok(items)
    }
}

/// A whole file: `{name?, events}`, a bare list, or nothing.
struct DocSeed<'a> {
    at: &'a Cell<Option<usize>>,
    bare: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_> {
    type Value = (Option<String>, Vec<RawItem>);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocSeed<'_> {
    type Value = (Option<String>, Vec<RawItem>);
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a trace: a mapping with `events:` or a list of events")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.bare.set(true);
        Ok((None, Vec::new()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.bare.set(true);
        let items = EventsSeed { at: self.at }.visit_seq(seq)?;
        Ok((None, items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut events) = (None, None);
        while let Some(key) = map.next_key_seed(Text("key"))? {
            match key.as_str() {
                "name" if name.is_none() => name = Some(map.next_value_seed(Text("name"))?),
                "events" if events.is_none() => {
                    events = Some(map.next_value_seed(EventsSeed { at: self.at })?)
                }
                "name" | "events" => return Err(de::Error::custom(format!("`{key}` given twice"))),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown top-level key `{}` (expected `name`, `events`)",
                        crate::text::excerpt(other)
                    )))
                }
            }
        }
        let events = events.ok_or_else(|| de::Error::custom("missing `events:` list"))?;
        Ok((name, events))
    }
}

/// The 1-based lines where the items of the event list start, found by a light scan
/// of the source (block style); empty when the list is written in flow style.
fn item_lines(src: &str, bare: bool) -> (usize, Vec<usize>) {
    let lines: Vec<&str> = src.lines().collect();
    let mut start = 0;
    let mut key_line = 1;
    if !bare {
        match lines.iter().position(|l| {
            let t = l.trim_end();
            t.starts_with("events:") || t.starts_with("\"events\":") || t.starts_with("'events':")
        }) {
            Some(i) => {
                start = i + 1;
                key_line = i + 1;
            }
            None => return (1, Vec::new()),
        }
    }
    let mut indent = None;
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(start) {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let ind = l.len() - t.len();
        let is_item = t == "-" || t.starts_with("- ") || t.starts_with("-\t");
        match indent {
            None if is_item => {
                indent = Some(ind);
                out.push(i + 1);
            }
            None => break,
            Some(k) if ind == k && is_item => out.push(i + 1),
            Some(k) if ind <= k && !is_item => break,
            Some(k) if ind < k => break,
            _ => {}
        }
    }
    (key_line, out)
}

/// Parsed file contents: the name and the items with their lines.
struct Items {
    name: Option<String>,
    items: Vec<(RawItem, usize)>,
}

fn read_items(src: &str) -> Result<Items, Error> {
    // An empty file is no trace (bug: an_empty_file_is_an_input_error); an explicit
    // `events: []` or `[]` still is the empty trace.
    let blank = src
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if blank {
        return Err(Error::Format {
            line: 1,
            message: "the file is empty: no trace (write `events: []` for the empty trace)".into(),
        });
    }
    // The parser may point one line past the end at end of input: name the last line.
    let last_line = src.lines().count().max(1);
    let (at, bare) = (Cell::new(None), Cell::new(false));
    let doc = DocSeed {
        at: &at,
        bare: &bare,
    }
    .deserialize(yaml_serde::Deserializer::from_str(src));
    let (name, list) = match doc {
        Ok(doc) => doc,
        Err(e) => {
            let loc = e.location();
            let line = loc.as_ref().map_or(1, |l| l.line()).clamp(1, last_line);
            let message = crate::text::message(&strip_location(&e.to_string()));
            // Not YAML at all: a syntax error; else the YAML describes no trace.
            if yaml_serde::from_str::<yaml_serde::Value>(src).is_err() {
                return Err(Error::Syntax {
                    line,
                    column: loc.as_ref().map_or(1, |l| l.column()),
                    message,
                });
            }
            return Err(match at.get() {
                Some(event) => Error::Malformed {
                    event,
                    line,
                    message,
                },
                None => Error::Format { line, message },
            });
        }
    };
    let (key_line, lines) = item_lines(src, bare.get());
    let n = list.len();
    let line_of = |i: usize| if lines.len() == n { lines[i] } else { key_line };
    let items = list
        .into_iter()
        .enumerate()
        .map(|(i, item)| (item, line_of(i)))
        .collect();
    Ok(Items { name, items })
}

/// Drops yaml_serde's ` at line L column C` (the location is printed in front) and
/// its path into the document (`events[3].var: `; the event is named in front).
fn strip_location(msg: &str) -> String {
    let msg = match msg.split_once(": ") {
        Some((path, rest)) if path.starts_with("events") && !path.contains(' ') => rest,
        _ => msg,
    };
    let Some(i) = msg.find(" at line ") else {
        return msg.to_string();
    };
    let rest = &msg[i + " at line ".len()..];
    let end = rest
        .find(',')
        .map_or(msg.len(), |j| i + " at line ".len() + j);
    format!("{}{}", &msg[..i], &msg[end..])
}

/// Parses a trace from YAML text with the full YAML reader alone.
pub fn parse_trace_general(src: &str) -> Result<Trace, Error> {
    let Items { name, items } = read_items(src)?;
    let mut b = TraceBuilder::new();
    b.set_name(name);
    b.reserve(items.len());
    for (i, (item, line)) in items.into_iter().enumerate() {
        let op = match item.op {
            RawOp::Trace(op) => op,
            RawOp::Commit => {
                return Err(Error::Malformed {
                    event: i,
                    line,
                    message:
                        "`commit` events belong in executions (`tsoser check-exec`), not traces"
                            .into(),
                })
            }
        };
        b.push_at(
            &item.thread,
            item.txn.as_deref(),
            op,
            item.var.as_deref(),
            item.val.as_deref(),
            line,
        );
    }
    b.build()
}

/// Parses an execution: a trace with `commit` events placed (docs/semantics.md §2). A commit
/// names its thread; it commits that thread's oldest pending write, whose variable
/// (and transaction) it must match when given. Writes still pending at the end are
/// committed at the end.
pub fn parse_execution(src: &str) -> Result<(Trace, Execution), Error> {
    let Items { name, items } = read_items(src)?;
    let mut b = TraceBuilder::new();
    b.set_name(name);
    // (item index, line, thread name, var, txn) of each commit, and the step order.
    let mut order: Vec<Result<usize, usize>> = Vec::new();
    let mut commits = Vec::new();
    for (i, (item, line)) in items.into_iter().enumerate() {
        match item.op {
            RawOp::Trace(op) => {
                order.push(Ok(b.len()));
                b.push_at(
                    &item.thread,
                    item.txn.as_deref(),
                    op,
                    item.var.as_deref(),
                    item.val.as_deref(),
                    line,
                );
            }
            RawOp::Commit => {
                order.push(Err(commits.len()));
                commits.push((i, line, item));
            }
        }
    }
    let trace = b.build()?;
    let mut pending: TiVec<ThreadId, std::collections::VecDeque<usize>> =
        trace.per_thread(Default::default());
    let mut steps = Vec::with_capacity(order.len());
    for o in order {
        match o {
            Ok(e) => {
                let ev = &trace.events[e];
                if ev.op.drains() && !pending[ev.thread].is_empty() {
                    let w = pending[ev.thread][0];
                    return Err(Error::Malformed {
                        event: e,
                        line: ev.line as usize,
                        message: format!(
                            "`{}` waits for an empty buffer, but `{}` (line {}) has not committed yet",
                            trace.describe(e),
                            trace.describe(w),
                            trace.events[w].line
                        ),
                    });
                }
                if ev.op == Op::Wr {
                    pending[ev.thread].push_back(e);
                }
                steps.push(Step::Event(e));
            }
            Err(c) => {
                let (i, line, item) = &commits[c];
                let bad = |m: String| Error::Malformed {
                    event: *i,
                    line: *line,
                    message: m,
                };
                let Some(th) = trace.threads.position(|t| *t == item.thread) else {
                    return Err(bad(format!(
                        "commit on thread `{}`, which issues no events",
                        item.thread
                    )));
                };
                let Some(w) = pending[th].pop_front() else {
                    return Err(bad(format!(
                        "commit on thread `{}` whose store buffer is empty",
                        item.thread
                    )));
                };
                let wv = &trace.vars[trace.events[w].var.unwrap()];
                if item.var.as_ref().is_some_and(|v| v != wv) {
                    return Err(bad(format!(
                        "commit of `{}` but the oldest pending write of thread `{}` is `{}` (line {}): buffers are FIFO",
                        item.var.as_ref().unwrap(),
                        item.thread,
                        trace.describe(w),
                        trace.events[w].line
                    )));
                }
                let named = |t: &String| {
                    !trace.txns[trace.events[w].txn].anonymous && *t == trace.txn_name(w)
                };
                if item.txn.as_ref().is_some_and(|t| !named(t)) {
                    return Err(bad(format!(
                        "commit names transaction `{}` but commits `{}` (line {})",
                        item.txn.as_ref().unwrap(),
                        trace.describe(w),
                        trace.events[w].line
                    )));
                }
                steps.push(Step::Commit(w));
            }
        }
    }
    for q in pending {
        for w in q {
            steps.push(Step::Commit(w));
        }
    }
    let exec = Execution::new(&trace, steps).map_err(|m| Error::Format {
        line: 1,
        message: m.to_string(),
    })?;
    Ok((trace, exec))
}

pub(super) fn read(path: &std::path::Path) -> Result<String, FileError> {
    let named = |error| FileError {
        file: path.display().to_string(),
        error,
    };
    let bytes = std::fs::read(path).map_err(|e| named(Error::Io(e)))?;
    crate::text::utf8(bytes).map_err(named)
}

/// Reads and parses an execution file; errors name the file.
pub fn read_execution(path: &std::path::Path) -> Result<(Trace, Execution), FileError> {
    let src = read(path)?;
    parse_execution(&src).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}
