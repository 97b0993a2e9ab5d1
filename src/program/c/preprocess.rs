//! The system C preprocessor (`cpp`, else `gcc -E`), and positions in its output
//! mapped back to the files and lines its `# line "file"` markers name.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::program::ReadOptions;

/// Why a file has no preprocessed text.
#[derive(Debug, thiserror::Error)]
pub enum PreprocessError {
    #[error("no C preprocessor: neither `cpp` nor `gcc` is on the PATH")]
    Missing,
    #[error("cannot run `{cmd}`: {error}")]
    Run {
        cmd: &'static str,
        error: std::io::Error,
    },
    /// The file does not preprocess: the preprocessor's own messages.
    #[error("the preprocessor (`{cmd}`) failed:\n{messages}")]
    Failed { cmd: &'static str, messages: String },
    #[error("`{0}` wrote text that is not UTF-8")]
    NotUtf8(&'static str),
    #[error("cannot write tsoser's headers to {dir}: {error}")]
    Headers { dir: String, error: std::io::Error },
}

/// tsoser's own headers, found before the compiler's: `<stdatomic.h>` as the
/// `__atomic` builtins (the compiler's uses statement expressions and `__auto_type`).
const HEADERS: [(&str, &str); 1] = [("stdatomic.h", include_str!("include/stdatomic.h"))];

/// A directory holding [`HEADERS`], named after their text (written once; a file
/// with other text is replaced, through a rename so that a reader never sees half).
fn header_dir() -> Result<PathBuf, PreprocessError> {
    // FNV-1a of the headers' text.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for b in HEADERS.iter().flat_map(|(n, t)| n.bytes().chain(t.bytes())) {
        hash = (hash ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let dir = std::env::temp_dir().join(format!("tsoser-include-{hash:016x}"));
    let fail = |error| PreprocessError::Headers {
        dir: dir.display().to_string(),
        error,
    };
    for (name, text) in HEADERS {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::create_dir_all(&dir).map_err(fail)?;
            let tmp = dir.join(format!("{name}.{}", std::process::id()));
            std::fs::write(&tmp, text).map_err(fail)?;
            std::fs::rename(&tmp, &path).map_err(fail)?;
        }
    }
    Ok(dir)
}

/// Runs the preprocessor on `path`: its output, or why there is none.
pub fn preprocess(path: &Path, d: &ReadOptions) -> Result<String, PreprocessError> {
    let headers = header_dir()?;
    for (cmd, pre) in [("cpp", &[][..]), ("gcc", &["-E"][..])] {
        let mut c = Command::new(cmd);
        c.args(pre);
        for x in &d.defines {
            c.arg(format!("-D{x}"));
        }
        for i in &d.includes {
            c.arg("-I").arg(i);
        }
        c.arg("-I").arg(&headers);
        c.arg(path);
        match c.output() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(PreprocessError::Run { cmd, error }),
            Ok(out) if !out.status.success() => {
                let messages = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
                return Err(PreprocessError::Failed { cmd, messages });
            }
            Ok(out) => {
                return String::from_utf8(out.stdout).map_err(|_| PreprocessError::NotUtf8(cmd))
            }
        }
    }
    Err(PreprocessError::Missing)
}

/// File and line of each line of preprocessed text, from its line markers.
pub struct SourceMap {
    /// Per line of the text: its start offset, file (index into `files`) and line.
    lines: Vec<(usize, u32, u32)>,
    files: Vec<String>,
    /// The text's length, and whether its last character is a newline.
    len: usize,
    newline_end: bool,
}

impl SourceMap {
    /// `file` names the text's lines until a marker says otherwise.
    pub fn new(text: &str, file: &str) -> SourceMap {
        let mut files = vec![file.to_string()];
        let mut lines = Vec::new();
        let (mut cur, mut line) = (0u32, 1u32);
        let mut start = 0;
        for l in text.split_inclusive('\n') {
            lines.push((start, cur, line));
            start += l.len();
            match marker(l) {
                Some((n, f)) => {
                    cur = match files.iter().position(|x| *x == f) {
                        Some(i) => i as u32,
                        None => {
                            files.push(f);
                            files.len() as u32 - 1
                        }
                    };
                    line = n;
                }
                // Saturating: a marker may number a line u32::MAX.
                None => line = line.saturating_add(1),
            }
        }
        SourceMap {
            lines,
            files,
            len: text.len(),
            newline_end: text.ends_with('\n'),
        }
    }

    /// The file, line and column (1-based) of byte `offset` of the text. A line that
    /// a marker numbers 0 (cpp's `# 0 "<built-in>"` is followed by no line of its own)
    /// is named by its place in the text itself: an error never says `file:0:`. The
    /// end of a text that ends with a newline is that newline, on the last line.
    pub fn locate(&self, offset: usize) -> (&str, usize, usize) {
        let offset = match offset.min(self.len) {
            o if o == self.len && self.newline_end => o - 1,
            o => o,
        };
        let i = self.lines.partition_point(|l| l.0 <= offset).max(1) - 1;
        match self.lines.get(i) {
            Some(&(start, _, 0)) => (&self.files[0], i + 1, offset - start + 1),
            Some(&(start, f, line)) => (&self.files[f as usize], line as usize, offset - start + 1),
            None => (&self.files[0], 1, 1),
        }
    }
}

/// A line marker `# 12 "file" …` (or `#line 12 "file"`): the next line's number and file.
fn marker(l: &str) -> Option<(u32, String)> {
    let rest = l.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let n = rest[..end].parse().ok()?;
    let f = rest[end..].trim_start().strip_prefix('"')?;
    let f = &f[..f.find('"')?];
    Some((n, f.to_string()))
}

/// GCC's `$` in identifiers (SV-COMP's generated `.i` files write `main$tmp_guard0`),
/// which lang-c does not read: each such identifier with `_` for `$`, one character
/// for one so that columns stay exact, unless that name is already an identifier of
/// the text (then the `$` stays, and the parser names the place).
pub fn dollars(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('$') {
        return text.into();
    }
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let idents: std::collections::HashSet<&str> = text
        .split(|c: char| !word(c))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        if word(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            let w = &text[s..i];
            let renamed = w.replace('$', "_");
            let digit = w.starts_with(|c: char| c.is_ascii_digit());
            if w.contains('$') && !digit && !idents.contains(renamed.as_str()) {
                out.push_str(&renamed);
            } else {
                out.push_str(w);
            }
        }
        if i < text.len() {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_name_the_file_and_line() {
        let text = "int a;\n# 7 \"x.h\" 1\nint b;\nint c;\n# 3 \"m.c\" 2\nint d;\n";
        let m = SourceMap::new(text, "m.c");
        assert_eq!(m.locate(0), ("m.c", 1, 1));
        let b = text.find("int b").unwrap();
        assert_eq!(m.locate(b + 4), ("x.h", 7, 5));
        assert_eq!(m.locate(text.find("int c").unwrap()), ("x.h", 8, 1));
        assert_eq!(m.locate(text.find("int d").unwrap()), ("m.c", 3, 1));
    }

    /// bug: a_line_numbered_0_is_named_by_its_place_in_the_text — code after cpp's
    /// `# 0 "<command-line>"` marker (a mutated `.i` file, found by fuzz_c) was
    /// reported at `<command-line>:0:512`; and a marker numbering a line u32::MAX
    /// made the next line's number overflow (a panic where overflow is checked).
    #[test]
    fn a_line_numbered_0_is_named_by_its_place_in_the_text() {
        let text = "# 0 \"<built-in>\"\n# 0 \"<command-line>\"\nint a;\n# 1 \"x.h\"\nint b;\n";
        let m = SourceMap::new(text, "m.i");
        assert_eq!(m.locate(text.find("int a").unwrap() + 4), ("m.i", 3, 5));
        assert_eq!(m.locate(text.find("int b").unwrap()), ("x.h", 1, 1));
        let text = "# 4294967295 \"y.h\"\nint a;\nint b;\n";
        let m = SourceMap::new(text, "m.i");
        assert_eq!(
            m.locate(text.find("int b").unwrap()),
            ("y.h", 4294967295, 1)
        );
    }

    /// bug: the_end_of_the_text_is_on_its_last_line — a syntax error at the end of
    /// `int main(void)\n{\n` was reported at column 3 of the 1-byte line `{` (found by
    /// fuzz_c): the end is the last newline, column 2.
    #[test]
    fn the_end_of_the_text_is_on_its_last_line() {
        let text = "int main(void)\n{\n";
        let m = SourceMap::new(text, "m.i");
        assert_eq!(m.locate(text.len()), ("m.i", 2, 2));
        assert_eq!(m.locate(text.find('{').unwrap()), ("m.i", 2, 1));
        assert_eq!(SourceMap::new("", "e.i").locate(0), ("e.i", 1, 1));
    }
}
