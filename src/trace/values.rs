//! Events' values (a YAML `val`, an STD location), end to end in one buffer: no
//! allocation per value, and an event holds only a [`ValId`].

use super::ValId;

/// The values of a trace's events, each found by its [`ValId`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    text: String,
    /// Where each value ends in `text` (the next one starts there), less the multiple
    /// of 2^`bits` that `wraps` gives: 4 bytes a value, where a `usize` takes 8.
    ends: Vec<u32>,
    /// For k = 1, 2, …: the first value whose end is at least k·2^`bits`.
    wraps: Vec<u32>,
    /// 32; smaller in tests, so that wrapping is seen without gigabytes of text.
    bits: u32,
}

impl Default for Values {
    fn default() -> Values {
        Values::with_bits(32)
    }
}

impl Values {
    fn with_bits(bits: u32) -> Values {
        Values {
            text: String::new(),
            ends: Vec::new(),
            wraps: Vec::new(),
            bits,
        }
    }

    /// Adds a value.
    pub fn push(&mut self, value: &str) -> ValId {
        let i = u32::try_from(self.ends.len()).expect("fewer than 2^32 values");
        self.text.push_str(value);
        let end = self.text.len() as u64;
        while (self.wraps.len() as u64) < end >> self.bits {
            self.wraps.push(i);
        }
        self.ends.push((end & ((1 << self.bits) - 1)) as u32);
        ValId::new(self.ends.len() - 1)
    }

    /// Where value `i` ends.
    fn end(&self, i: usize) -> usize {
        let high = self.wraps.partition_point(|&w| w as usize <= i) as u64;
        ((high << self.bits) | self.ends[i] as u64) as usize
    }

    /// The value `v`.
    pub fn get(&self, v: ValId) -> &str {
        let i = v.index();
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        &self.text[start..self.end(i)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Ends past 2^bits (here 2^4 = 16 bytes; a value may span several) give back
    /// each value as pushed.
    #[test]
    fn values_past_the_wrap_read_back_as_pushed() {
        let want: Vec<String> = (0..200)
            .map(|i| "v".repeat((i * 7) % 41) + &i.to_string())
            .collect();
        let mut small = Values::with_bits(4);
        let mut full = Values::default();
        let ids: Vec<ValId> = want.iter().map(|v| small.push(v)).collect();
        want.iter().for_each(|v| {
            full.push(v);
        });
        assert!(small.wraps.len() > 100);
        for (id, v) in ids.iter().zip(&want) {
            assert_eq!(small.get(*id), v);
            assert_eq!(full.get(*id), v);
        }
    }
}
