//! The system C preprocessor (`cpp`, else `gcc -E`), and positions in its output
//! mapped back to the files and lines its `# line "file"` markers name.

use std::path::Path;
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
}

/// Runs the preprocessor on `path`: its output, or why there is none.
pub fn preprocess(path: &Path, d: &ReadOptions) -> Result<String, PreprocessError> {
    for (cmd, pre) in [("cpp", &[][..]), ("gcc", &["-E"][..])] {
        let mut c = Command::new(cmd);
        c.args(pre);
        for x in &d.defines {
            c.arg(format!("-D{x}"));
        }
        for i in &d.includes {
            c.arg("-I").arg(i);
        }
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
                None => line += 1,
            }
        }
        SourceMap { lines, files }
    }

    /// The file, line and column (1-based) of byte `offset` of the text.
    pub fn locate(&self, offset: usize) -> (&str, usize, usize) {
        let i = self.lines.partition_point(|l| l.0 <= offset).max(1) - 1;
        match self.lines.get(i) {
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
}
