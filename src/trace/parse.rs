//! The YAML trace format (README "Trace format"), read with `yaml_serde`.
//!
//! A file is a mapping with `events:` (and optional `name:`), or a bare sequence of
//! events. An event is a mapping `{thread, txn?, op, var?, val?}` or a compact string
//! `"thread txn op [var] [val]"` (`txn` may be left out when the op is the second word).
//! Executions (for `check-exec`) may also contain `commit` events.

use super::exec::{Execution, Step};
use super::ThreadId;
use super::TiVec;
use super::{Op, Trace, TraceBuilder};
use crate::error::{Error, FileError};
use yaml_serde::Value;

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

fn op_of(word: &str) -> Option<RawOp> {
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

/// Parses the compact form `thread txn op [var] [val]` or `thread op [var] [val]`.
pub fn parse_compact(s: &str) -> Result<RawItem, String> {
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.len() < 2 {
        return Err(format!("compact event `{s}` needs at least `thread op`"));
    }
    // `thread txn op ...` is preferred when the third word is an op.
    let (txn, op_at) = if words.len() >= 3 && op_of(words[2]).is_some() {
        (Some(words[1].to_string()), 2)
    } else if op_of(words[1]).is_some() {
        (None, 1)
    } else {
        let guess = if words.len() >= 3 { words[2] } else { words[1] };
        return Err(format!("unknown op `{guess}` in `{s}` (expected {OPS})"));
    };
    let op = op_of(words[op_at]).unwrap();
    let rest = &words[op_at + 1..];
    let needs_var = !matches!(op, RawOp::Trace(Op::Fence));
    let (var, val) = match (op, rest) {
        (RawOp::Commit, []) => (None, None),
        (RawOp::Commit, [v]) => (Some(v.to_string()), None),
        (_, []) if needs_var => {
            return Err(format!("`{}` needs a variable in `{s}`", words[op_at]))
        }
        (_, []) => (None, None),
        (_, [v]) if needs_var => (Some(v.to_string()), None),
        (_, [v, x]) if needs_var => (Some(v.to_string()), Some(x.to_string())),
        (_, _) if !needs_var => return Err(format!("`fence` takes no variable in `{s}`")),
        _ => {
            return Err(format!(
                "too many words in `{s}` (expected `thread [txn] op var [val]`)"
            ))
        }
    };
    Ok(RawItem {
        thread: words[0].to_string(),
        txn,
        op,
        var,
        val,
    })
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn name_field(key: &str, v: &Value) -> Result<String, String> {
    match scalar(v) {
        // Any name that is not blank; the compact form splits at white space, the
        // mapping form carries every name (bug: convert_to_yaml_keeps_every_name).
        Some(s) if !s.trim().is_empty() => Ok(s),
        Some(_) => Err(format!("`{key}` is empty")),
        None => Err(format!("`{key}` must be a plain name, not {}", kind(v))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

fn parse_item(v: &Value) -> Result<RawItem, String> {
    match v {
        Value::String(s) => parse_compact(s),
        Value::Mapping(m) => {
            let mut item = RawItem {
                thread: String::new(),
                txn: None,
                op: RawOp::Trace(Op::Fence),
                var: None,
                val: None,
            };
            let (mut has_thread, mut has_op) = (false, false);
            for (k, val) in m {
                let key = scalar(k).unwrap_or_default();
                match key.as_str() {
                    "thread" => {
                        item.thread = name_field("thread", val)?;
                        has_thread = true;
                    }
                    "txn" => item.txn = Some(name_field("txn", val)?),
                    "op" => {
                        let w = name_field("op", val)?;
                        item.op = op_of(&w)
                            .ok_or_else(|| format!("unknown op `{w}` (expected {OPS})"))?;
                        has_op = true;
                    }
                    "var" => item.var = Some(name_field("var", val)?),
                    "val" => {
                        item.val =
                            Some(scalar(val).ok_or_else(|| {
                                format!("`val` must be a scalar, not {}", kind(val))
                            })?)
                    }
                    other => {
                        return Err(format!(
                            "unknown field `{other}` (expected thread, txn, op, var, val)"
                        ))
                    }
                }
            }
            if !has_thread {
                return Err("missing field `thread`".into());
            }
            if !has_op {
                return Err("missing field `op`".into());
            }
            match item.op {
                RawOp::Trace(Op::Fence) if item.var.is_some() => {
                    return Err("`fence` takes no `var`".into())
                }
                RawOp::Trace(op) if op != Op::Fence && item.var.is_none() => {
                    return Err(format!("`{op}` needs a `var`"))
                }
                _ => {}
            }
            Ok(item)
        }
        other => Err(format!(
            "an event must be a mapping or a compact string, not {}",
            kind(other)
        )),
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
    let doc: Value = yaml_serde::from_str(src).map_err(|e| {
        let loc = e.location();
        Error::Syntax {
            line: loc.as_ref().map_or(1, |l| l.line()).clamp(1, last_line),
            column: loc.as_ref().map_or(1, |l| l.column()),
            message: crate::text::message(&strip_location(&e.to_string())),
        }
    })?;
    let (name, list, bare) = match doc {
        Value::Sequence(s) => (None, s, true),
        Value::Mapping(m) => {
            let mut name = None;
            let mut events = None;
            for (k, v) in m {
                match scalar(&k).as_deref() {
                    Some("name") => {
                        name = Some(scalar(&v).ok_or(Error::Format {
                            line: 1,
                            message: format!("`name` must be a scalar, not {}", kind(&v)),
                        })?)
                    }
                    Some("events") => events = Some(v),
                    other => {
                        return Err(Error::Format {
                            line: 1,
                            message: format!(
                                "unknown top-level key `{}` (expected `name`, `events`)",
                                other.unwrap_or("?")
                            ),
                        })
                    }
                }
            }
            match events {
                Some(Value::Sequence(s)) => (name, s, false),
                Some(Value::Null) => (name, Vec::new(), false),
                Some(other) => {
                    return Err(Error::Format {
                        line: item_lines(src, false).0,
                        message: format!("`events` must be a list, not {}", kind(&other)),
                    })
                }
                None => {
                    return Err(Error::Format {
                        line: 1,
                        message: "missing `events:` list".into(),
                    })
                }
            }
        }
        Value::Null => (None, Vec::new(), true),
        other => {
            return Err(Error::Format {
                line: 1,
                message: format!(
                    "a trace file is a mapping with `events:` or a list of events, not {}",
                    kind(&other)
                ),
            })
        }
    };
    let (key_line, lines) = item_lines(src, bare);
    let line_of = |i: usize| {
        if lines.len() == list.len() {
            lines[i]
        } else {
            key_line
        }
    };
    let mut items = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let item = parse_item(v).map_err(|m| Error::Malformed {
            event: i,
            line: line_of(i),
            message: m,
        })?;
        items.push((item, line_of(i)));
    }
    Ok(Items { name, items })
}

/// Drops yaml_serde's ` at line L column C` (the location is printed in front).
fn strip_location(msg: &str) -> String {
    let Some(i) = msg.find(" at line ") else {
        return msg.to_string();
    };
    let rest = &msg[i + " at line ".len()..];
    let end = rest
        .find(',')
        .map_or(msg.len(), |j| i + " at line ".len() + j);
    format!("{}{}", &msg[..i], &msg[end..])
}

/// Parses a trace from YAML text.
pub fn parse_trace(src: &str) -> Result<Trace, Error> {
    let Items { name, items } = read_items(src)?;
    let mut b = TraceBuilder::new();
    b.set_name(name);
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
            item.val,
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
                    item.val,
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
                        line: ev.line,
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
                if item.txn.as_ref().is_some_and(|t| *t != trace.txn_name(w)) {
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
        message: m,
    })?;
    Ok((trace, exec))
}

fn read(path: &std::path::Path) -> Result<String, FileError> {
    std::fs::read_to_string(path).map_err(|e| FileError {
        file: path.display().to_string(),
        error: Error::Io(e),
    })
}

/// Reads and parses a trace file; errors name the file.
pub fn read_trace(path: &std::path::Path) -> Result<Trace, FileError> {
    let src = read(path)?;
    parse_trace(&src).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

/// Reads and parses an execution file; errors name the file.
pub fn read_execution(path: &std::path::Path) -> Result<(Trace, Execution), FileError> {
    let src = read(path)?;
    parse_execution(&src).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

/// Writes a trace in the canonical YAML form (one flow mapping per event).
pub fn to_yaml(trace: &Trace) -> String {
    let mut s = String::new();
    if let Some(n) = &trace.name {
        s.push_str(&format!("name: {}\n", quote(n)));
    }
    s.push_str("events:\n");
    for i in 0..trace.len() {
        s.push_str(&format!("  - {}\n", event_yaml(trace, i)));
    }
    s
}

/// One event as a YAML flow mapping.
pub fn event_yaml(trace: &Trace, i: usize) -> String {
    let e = &trace.events[i];
    let mut s = format!(
        "{{thread: {}, txn: {}, op: {}",
        quote(&trace.threads[e.thread]),
        quote(&trace.txns[e.txn].name),
        e.op
    );
    if let Some(v) = e.var {
        s.push_str(&format!(", var: {}", quote(&trace.vars[v])));
    }
    if let Some(v) = &e.val {
        s.push_str(&format!(", val: {}", quote(v)));
    }
    s.push('}');
    s
}

/// Quotes a name for YAML when needed.
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'))
        && !s.starts_with(['-', '@', '.'])
        && !matches!(
            s,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        return s.to_string();
    }
    // A YAML double-quoted scalar; control characters, line and paragraph separators
    // and the byte-order mark escaped, so they read back unchanged.
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '\\' => q.push_str("\\\\"),
            '"' => q.push_str("\\\""),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{85}') => {
                q.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
