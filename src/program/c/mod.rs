//! C programs read directly (docs/c.md): `.c` files through the system preprocessor,
//! `.i` files as they are, parsed by `lang-c` (C11 with GNU extensions) and lowered to
//! the program IR of [`crate::program`]: globals become locations, locals registers,
//! calls are inlined, and each `pthread_create` starts a thread with `spawn`.
//!
//! - `preprocess`: the preprocessor, and preprocessed positions mapped to source lines.
//! - `nesting`: how deep the text may nest (deeper is an input error, not a stack
//!   overflow).
//! - `types`: C types as cells.
//! - `lower`: the translation unit (globals, threads) and the code builder.
//! - `stmt`, `expr`, `calls`: statements, expressions, and calls (builtins, pthreads,
//!   inlining); `heap`: `malloc`, `calloc` and `free` from bounded pools; `error`:
//!   their errors, at a span of the preprocessed text.

mod calls;
mod error;
mod expr;
mod heap;
mod lower;
mod nesting;
pub mod preprocess;
mod stmt;
mod types;

use crate::error::{Error, FileError};
use crate::program::{LoopBound, Program, ReadOptions};
use std::path::Path;

/// Reads a C file: preprocessed first unless `preprocessed` (a `.i` file).
pub fn read_c(
    path: &Path,
    options: &ReadOptions,
    preprocessed: bool,
) -> Result<Program, FileError> {
    let file = path.display().to_string();
    let wrap = |error| FileError {
        file: file.clone(),
        error,
    };
    let raw = std::fs::read_to_string(path).map_err(|e| wrap(Error::Io(e)))?;
    if preprocessed {
        return read_preprocessed(&raw, &file, options);
    }
    let text = preprocess::preprocess(path, options)
        .map_err(|e| wrap(Error::Preprocess(e.to_string())))?;
    // The preprocessor dropped the comments: the bound is in the source.
    read_text(&text, &file, options, bound_comment(&raw))
}

/// Reads already-preprocessed C text (what a `.i` file holds) named `name`: its lines
/// are `name`'s until a line marker names another file. No process is started (the
/// options' `-D` and `-I` are not used).
pub fn read_preprocessed(
    text: &str,
    name: &str,
    options: &ReadOptions,
) -> Result<Program, FileError> {
    read_text(text, name, options, bound_comment(text))
}

/// Parses and lowers preprocessed `text` of the file `file`, whose `/* BOUND N */`
/// comment gave `bound`: the program's `unroll N`, or under a per-entry loop bound
/// with no N of its own, that N.
fn read_text(
    text: &str,
    file: &str,
    options: &ReadOptions,
    bound: Option<u32>,
) -> Result<Program, FileError> {
    let wrap = |error| FileError {
        file: file.to_string(),
        error,
    };
    let text = preprocess::dollars(text).into_owned();
    let map = preprocess::SourceMap::new(&text, file);
    let at = |offset: usize, message: String| {
        let (f, line, column) = map.locate(offset);
        wrap(Error::Source {
            file: f.to_string(),
            line,
            column,
            message,
        })
    };
    if let Some(offset) = nesting::too_deep(&text) {
        return Err(at(
            offset,
            format!(
                "nested more than {} deep (brackets, operators of one expression, statements in statements)",
                nesting::MAX_DEPTH
            ),
        ));
    }
    let config = lang_c::driver::Config::with_gcc();
    let unit = lang_c::driver::parse_preprocessed(&config, text.clone()).map_err(|e| {
        let mut expected: Vec<_> = e.expected.iter().copied().collect();
        expected.sort();
        at(
            e.offset,
            format!("syntax error: expected one of {}", expected.join(" ")),
        )
    })?;
    let name = Path::new(file)
        .file_stem()
        .map_or("c".into(), |s| s.to_string_lossy().into_owned());
    let per_entry = match options.loop_bound {
        LoopBound::Thread => None,
        LoopBound::Entry(n) => Some(n.or(bound).unwrap_or(4)),
    };
    let mut p = lower::lower(&unit.unit, &name, &map, options, per_entry).map_err(|e| {
        let offset = if e.span.is_none() { 0 } else { e.span.start };
        at(offset, e.msg)
    })?;
    match per_entry {
        Some(n) => p.loop_bound = Some(n),
        None => p.unroll = bound,
    }
    Ok(p)
}

/// The benchmark's own loop bound, from a `/* BOUND N */` comment.
fn bound_comment(text: &str) -> Option<u32> {
    text.match_indices("/*").find_map(|(i, _)| {
        let body = text[i + 2..].split("*/").next()?.trim();
        body.strip_prefix("BOUND")?.trim().parse().ok()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bound_comment_is_read() {
        assert_eq!(
            super::bound_comment("/* x */\n/* BOUND 7 */ int a;"),
            Some(7)
        );
        assert_eq!(super::bound_comment("/* BOUNDS */"), None);
    }
}
