//! Text from the input, made safe to print: control characters escaped, long text cut
//! to a short excerpt (an error message never echoes a 1 GB line or a raw escape
//! sequence to the terminal).

use std::borrow::Cow;

/// How many characters of input an excerpt keeps.
pub const EXCERPT: usize = 80;

/// `s` with every control character (and the line/paragraph separators) written as
/// `\u{…}`, so it stays on one line and cannot drive the terminal.
pub fn escaped(s: &str) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` made a safe file-name stem: every character but ASCII letters, digits and those
/// of `keep` becomes `_` (no `/`, no `..` path, no control character).
pub fn file_stem(s: impl Iterator<Item = char>, keep: &[char]) -> String {
    s.map(|c| {
        if c.is_ascii_alphanumeric() || keep.contains(&c) {
            c
        } else {
            '_'
        }
    })
    .collect()
}

/// At most [`EXCERPT`] characters of `s`, escaped, with `…` when cut.
pub fn excerpt(s: &str) -> String {
    let mut cut: String = s.chars().take(EXCERPT).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    escaped(&cut).into_owned()
}

/// How long a whole error message may be.
pub const MESSAGE: usize = 400;

/// An error message made safe to print: escaped, and cut to [`MESSAGE`] characters
/// (a message that quotes a huge input line stays one short line).
pub fn message(s: &str) -> String {
    let mut cut: String = s.chars().take(MESSAGE).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    escaped(&cut).into_owned()
}

/// The error of input that is not UTF-8, naming the line (1-based) of its first bad
/// byte: every reader's.
pub fn not_utf8(line: usize) -> crate::Error {
    crate::Error::Format {
        line,
        message: "the line is not valid UTF-8".into(),
    }
}

/// `bytes` as text, or [`not_utf8`] naming the line of the first byte that is not.
pub fn utf8(bytes: Vec<u8>) -> Result<String, crate::Error> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        not_utf8(memchr::memchr_iter(b'\n', &bytes[..at]).count() + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(escaped("a\nb\x1b[31m"), "a\\u{a}b\\u{1b}[31m");
        assert_eq!(escaped("plain"), "plain");
        let long = "x".repeat(10_000);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT + 1);
        assert_eq!(excerpt("short"), "short");
    }
}
