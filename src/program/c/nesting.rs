//! How deep preprocessed C text nests, bounded before it is parsed. lang-c's parser,
//! the lowering and the syntax tree's drop each recurse once or more per level of
//! nesting: about 3,000 parentheses, 5,000 nested blocks or 9,000 terms of one sum
//! overflow an 8 MiB stack (a 2 MiB one, a test's or a `suite` worker's, far sooner),
//! and a stack overflow aborts the process. So a text that nests deeper than
//! [`MAX_DEPTH`] is an input error at the place it does, as the `.prog` reader's
//! conditions are ([`crate::program::tokens::MAX_NESTING`]).
//!
//! The depth is counted on tokens, as an upper bound of the tree's depth (within a
//! constant factor): each open bracket (`(`, `[`, `{`) is a level, and within a level
//! each operator, each keyword that nests ([`DEEPER`]: statements' and prefix
//! operators') and each `)`/`]` followed by `(` or `[` (a cast, call or index chained
//! to the next) deepens it, until the expression or statement ends: at a `;` (unless an
//! `else` follows, which continues the statement), a closing `}`, or a `,` (the
//! items of lists, and the comma operator's operands, which lang-c also reads as a
//! list).

/// The deepest nesting read: 256 levels need at most about 0.7 MiB of stack (a
/// parenthesis, the costliest level, takes about 2.7 KiB in lang-c's parser), well
/// within the 2 MiB of a spawned thread.
pub const MAX_DEPTH: usize = 256;

/// A level: whether it is a brace (or the file), its depth so far within it, and
/// whether its depth ends at the next token unless that is `else`.
struct Level {
    brace: bool,
    count: usize,
    pending: bool,
}

/// The byte offset of `text` where it first nests deeper than [`MAX_DEPTH`], if it does.
pub fn too_deep(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    // The file's level, then one per open bracket.
    let mut levels = vec![Level {
        brace: true,
        count: 0,
        pending: false,
    }];
    // The depth of all levels but the innermost's count.
    let mut outer = 1usize;
    // Whether the previous token closed a bracket: a `(` or `[` after it chains.
    let mut closed = false;
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // A line marker or other directive: the parser skips the line.
        if c == b'#' && line_start {
            i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            continue;
        }
        line_start = false;
        if b[i..].starts_with(b"//") {
            i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |n| i + 2 + n + 2);
            continue;
        }
        let start = i;
        let top = levels.last_mut().expect("the file's level");
        // The statement or expression ended at the last `;` or `}`: a new one begins,
        // unless this is the `else` that continues it.
        let word_end = b[i..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80))
            .map_or(b.len(), |n| i + n);
        let word = &b[i..word_end];
        if top.pending && word != b"else" {
            top.count = 0;
        }
        top.pending = false;
        let mut deeper = 0;
        let was_closed = std::mem::take(&mut closed);
        if !word.is_empty() {
            // A name, keyword or number (an exponent's sign is read as an operator,
            // which only overcounts).
            i = word_end;
            if DEEPER.contains(&word) {
                deeper = 1;
            }
        } else if c == b'"' || c == b'\'' {
            // A literal, to its closing quote (or the line's end).
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i < b.len() && b[i] == c {
                i += 1;
            }
            i = i.min(b.len());
        } else if matches!(c, b'(' | b'[' | b'{') {
            i += 1;
            if was_closed && c != b'{' {
                top.count += 1;
            }
            outer += 1 + top.count;
            levels.push(Level {
                brace: c == b'{',
                count: 0,
                pending: false,
            });
        } else if matches!(c, b')' | b']' | b'}') {
            i += 1;
            if levels.len() > 1 {
                levels.pop();
                let parent = levels.last_mut().expect("the file's level");
                outer -= 1 + parent.count;
                if c == b'}' && parent.brace {
                    parent.pending = true;
                }
            }
            closed = true;
        } else if c == b';' {
            i += 1;
            top.pending = true;
        } else if c == b',' {
            i += 1;
            top.count = 0;
        } else {
            // An operator (or a stray character), the longest that C has here.
            let three = [b"<<=", b">>=", b"..."]
                .iter()
                .any(|op| b[i..].starts_with(*op));
            let two = TWO.iter().any(|op| b[i..].starts_with(op));
            i += if three {
                3
            } else if two {
                2
            } else {
                1
            };
            deeper = 1;
        }
        let top = levels.last_mut().expect("the file's level");
        top.count += deeper;
        if outer + top.count > MAX_DEPTH {
            return Some(start);
        }
    }
    None
}

/// The keywords that nest what follows them: statements in statements, and the
/// prefix operators that are words.
const DEEPER: [&[u8]; 15] = [
    b"if",
    b"else",
    b"while",
    b"for",
    b"do",
    b"switch",
    b"case",
    b"default",
    b"sizeof",
    b"_Alignof",
    b"__alignof",
    b"__alignof__",
    b"__extension__",
    b"__real__",
    b"__imag__",
];

/// C's two-character operators.
const TWO: [&[u8]; 19] = [
    b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"*=", b"/=",
    b"%=", b"+=", b"-=", b"&=", b"^=", b"|=",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn main_with(body: &str) -> String {
        format!("int x; int a[1];\nint main(void) {{\n{body}\nreturn 0;\n}}\n")
    }

    #[test]
    fn deep_nesting_is_found_where_it_passes_the_bound() {
        let d = MAX_DEPTH;
        for (open, close) in [
            ("(", ")"),
            ("- ", ""),
            ("!", ""),
            ("{", "}"),
            ("if (x) ", ""),
            ("sizeof ", ""),
            ("(int)", ""),
            ("a[", "]"),
        ] {
            let body = format!("x = {}1{};", open.repeat(d), close.repeat(d));
            let text = main_with(&body);
            let at = too_deep(&text).unwrap_or_else(|| panic!("`{open}` × {d}"));
            assert!(text[..at].matches(open).count() < d, "`{open}` found late");
            let shallow = main_with(&format!("x = {}1{};", open.repeat(20), close.repeat(20)));
            assert_eq!(too_deep(&shallow), None, "`{open}` × 20");
        }
        let sum = main_with(&format!("x = {};", vec!["1"; 2 * d].join(" + ")));
        assert!(too_deep(&sum).is_some());
        let chain = "if (x) x = 1; else ".repeat(d);
        assert!(too_deep(&main_with(&format!("{chain} x = 2;"))).is_some());
    }

    /// Long lists (initializers, arguments, statements, declarations) are not deep.
    #[test]
    fn long_lists_are_not_deep() {
        let n = 10 * MAX_DEPTH;
        let items = vec!["1 + 2"; n].join(", ");
        let text = format!(
            "int b[] = {{ {items} }};\nint f(int a, ...);\nint main(void) {{\n{}\nf({items});\nx = ({items});\n}}\n",
            "if (x) x = x + 1; else x = 2;\n".repeat(n),
        );
        assert_eq!(too_deep(&text), None);
    }
}
