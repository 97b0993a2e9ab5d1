//! A lowering error: a message at a span of the preprocessed text, which
//! `read_c` turns into `file:line:col`.

use lang_c::span::Span;

#[derive(Debug)]
pub struct CErr {
    pub span: Span,
    pub msg: String,
}

impl CErr {
    pub fn new(span: Span, msg: impl Into<String>) -> CErr {
        CErr {
            span,
            msg: msg.into(),
        }
    }
}

pub type R<T> = Result<T, CErr>;

pub fn err<T>(span: Span, msg: impl Into<String>) -> R<T> {
    Err(CErr::new(span, msg))
}
