//! Events' values (a YAML `val`, an STD location), end to end in one buffer: no
//! allocation per value, and an event holds only a [`ValId`].

use super::ValId;

/// The values of a trace's events, each found by its [`ValId`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values {
    text: String,
    /// Where each value ends in `text` (the next one starts there).
    ends: Vec<usize>,
}

impl Values {
    /// Adds a value.
    pub fn push(&mut self, value: &str) -> ValId {
        self.text.push_str(value);
        self.ends.push(self.text.len());
        ValId::new(self.ends.len() - 1)
    }

    /// The value `v`.
    pub fn get(&self, v: ValId) -> &str {
        let i = v.index();
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Frees the room reserved for values never pushed.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}
