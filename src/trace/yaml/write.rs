//! The writer: one event writer for traces, executions and runs with values.

use crate::trace::exec::{Execution, Step};
use crate::trace::Trace;

/// How a writer spells events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// One flow mapping per event: `{thread: a, txn: t, op: wr, var: x}`.
    Canonical,
    /// A compact string per event, `"a t wr x"`, where its words allow (else a
    /// mapping): fast to write and read.
    Compact,
}

/// One event's fields as written (`op` may be `commit`, in executions).
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a> {
    pub thread: &'a str,
    pub txn: Option<&'a str>,
    pub op: &'a str,
    pub var: Option<&'a str>,
    pub val: Option<&'a str>,
}

/// A word of the compact form: no white space, quote or backslash, not empty, not a
/// comment (bug: convert_to_yaml_keeps_every_name).
fn word(w: &str) -> bool {
    !w.is_empty()
        && !w.starts_with('#')
        && !w
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '\\' | '\u{feff}'))
}

/// The event as a list item's text (after `- `) in `form`. A compact string reads
/// back as the same fields, or the event is written as a mapping: every word must be
/// one, a value needs a variable, and without a transaction the variable must not be
/// an op (`thread op var` would read `var` as the op).
pub fn event(f: &Fields, form: Form) -> String {
    let compact = form == Form::Compact
        && word(f.thread)
        && f.txn.is_none_or(word)
        && f.var
            .is_none_or(|v| word(v) && (f.txn.is_some() || !super::is_op_word(v)))
        && f.val.is_none_or(|v| f.var.is_some() && word(v));
    if compact {
        let mut s = String::from("\"");
        let words = [Some(f.thread), f.txn, Some(f.op), f.var, f.val];
        for (k, w) in words.into_iter().flatten().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            s.push_str(w);
        }
        s.push('"');
        return s;
    }
    let mut s = format!("{{thread: {}", quote(f.thread));
    if let Some(x) = f.txn {
        s.push_str(&format!(", txn: {}", quote(x)));
    }
    s.push_str(&format!(", op: {}", f.op));
    if let Some(v) = f.var {
        s.push_str(&format!(", var: {}", quote(v)));
    }
    if let Some(v) = f.val {
        s.push_str(&format!(", val: {}", quote(v)));
    }
    s.push('}');
    s
}

/// A whole file: `name:` when there is one, then `events:` and one item per event.
pub fn document(name: Option<&str>, events: impl Iterator<Item = String>) -> String {
    let mut s = String::new();
    if let Some(n) = name {
        s.push_str(&format!("name: {}\n", quote(n)));
    }
    s.push_str("events:\n");
    for e in events {
        s.push_str("  - ");
        s.push_str(&e);
        s.push('\n');
    }
    s
}

/// A trace in `form`. Anonymous transactions are written as
/// [`Trace::written_txn_names`] says, so the text reads back as the same trace.
pub fn write(trace: &Trace, form: Form) -> String {
    let names = trace.written_txn_names();
    let events = trace.events.iter().enumerate().map(|(i, e)| {
        let val = trace.val(i);
        let fields = Fields {
            thread: &trace.threads[e.thread],
            txn: names[e.txn].as_deref(),
            op: e.op.name(),
            var: e.var.map(|v| trace.vars[v].as_str()),
            val: val.as_deref(),
        };
        event(&fields, form)
    });
    document(trace.name.as_deref(), events)
}

/// An execution in the `check-exec` form: the trace's events in the execution's
/// order, each commit a `commit` event of its write's thread, variable and
/// transaction (canonical form).
pub fn write_execution(trace: &Trace, exec: &Execution) -> String {
    let names = trace.written_txn_names();
    let events = exec.steps().map(|st| {
        let (e, commit) = match st {
            Step::Event(e) => (e, false),
            Step::Commit(w) => (w, true),
        };
        let ev = &trace.events[e];
        let val = if commit { None } else { trace.val(e) };
        let fields = Fields {
            thread: &trace.threads[ev.thread],
            txn: names[ev.txn].as_deref(),
            op: if commit { "commit" } else { ev.op.name() },
            var: ev.var.map(|v| trace.vars[v].as_str()),
            val: val.as_deref(),
        };
        event(&fields, Form::Canonical)
    });
    document(trace.name.as_deref(), events)
}

/// Whether [`quote`] leaves a name as it is: YAML reads it back as this text.
pub fn is_plain(s: &str) -> bool {
    let ok = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@');
    // ASCII a byte at a time (decoding characters was a tenth of reading a
    // mapping-form file).
    let all_ok = if s.is_ascii() {
        s.bytes().all(|b| ok(b as char))
    } else {
        s.chars().all(ok)
    };
    !s.is_empty()
        && all_ok
        && !s.starts_with(['-', '@', '.'])
        && !matches!(
            s,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && !number(s)
}

/// Whether `s` reads as an `f64`. Only a sign, a digit, `.`, or the `i` or `n` of
/// `inf` and `nan` (either case) can start one, so most names are answered by their
/// first byte (parsing each name as a number was 7 % of reading a mapping-form file).
fn number(s: &str) -> bool {
    let may = s.bytes().next().is_some_and(|c| {
        c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'i' | b'I' | b'n' | b'N')
    });
    may && s.parse::<f64>().is_ok()
}

/// Quotes a name for YAML when needed.
pub fn quote(s: &str) -> String {
    if is_plain(s) {
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

#[cfg(test)]
mod tests {
    /// The first-byte test never answers for a text `f64` would read: every text of up
    /// to three bytes over an alphabet of what starts and makes numbers, and more.
    #[test]
    fn number_is_what_f64_reads() {
        let alphabet = [
            "0", "9", "+", "-", ".", "e", "E", "i", "I", "n", "N", "a", "_", "x",
        ];
        let mut texts: Vec<String> = vec![];
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    texts.extend([a.to_string(), format!("{a}{b}"), format!("{a}{b}{c}")]);
                }
            }
        }
        texts.extend(
            [
                "inf", "Infinity", "NaN", "nan", "infinit", "1e5", "1_0", "x1",
            ]
            .map(String::from),
        );
        for s in texts {
            assert_eq!(super::number(&s), s.parse::<f64>().is_ok(), "{s:?}");
        }
    }
}
