//! Events' values (a YAML `val`, an STD location), end to end in one buffer: no
//! allocation per value, and an event holds only a [`ValId`]. A value written as a
//! number (`0`, or digits not starting with `0`, below 2³¹ − 1: an STD location,
//! a YAML `val: 3`) is kept in its id itself, not in the buffer.

use super::ValId;
use std::ops::Deref;

/// Ids from here on hold a number, not a place in the buffer.
const NUMBER: usize = 1 << 31;

/// The number `value` is written as, if it is one: its exact text is the number's
/// decimal form (no sign, no leading zero), and it fits below 2³¹ − 1.
fn number(value: &str) -> Option<u32> {
    let n = super::names::decimal(value.as_bytes(), 10)?;
    (n < (NUMBER - 1) as u64).then_some(n as u32)
}

/// A value's text: in the buffer, or a number written out.
#[derive(Clone, Copy)]
pub struct Val<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    Text(&'a str),
    Number { digits: [u8; 10], len: u8 },
}

impl Deref for Val<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Text(s) => s,
            Repr::Number { digits, len } => {
                std::str::from_utf8(&digits[..*len as usize]).expect("ASCII digits")
            }
        }
    }
}

impl std::fmt::Debug for Val<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl std::fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq for Val<'_> {
    fn eq(&self, other: &Val<'_>) -> bool {
        **self == **other
    }
}

impl Eq for Val<'_> {}

impl PartialEq<&str> for Val<'_> {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

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
        if let Some(n) = number(value) {
            return ValId::new(NUMBER + n as usize);
        }
        let i = self.ends.len() as u32;
        assert!((i as usize) < NUMBER, "fewer than 2^31 values");
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
    pub fn get(&self, v: ValId) -> Val<'_> {
        let i = v.index();
        if i >= NUMBER {
            let (mut digits, mut n, mut len) = ([0u8; 10], i - NUMBER, 0);
            loop {
                digits[len] = b'0' + (n % 10) as u8;
                (n, len) = (n / 10, len + 1);
                if n == 0 {
                    break;
                }
            }
            digits[..len].reverse();
            return Val(Repr::Number {
                digits,
                len: len as u8,
            });
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        Val(Repr::Text(&self.text[start..self.end(i)]))
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
            assert_eq!(&*small.get(*id), v);
            assert_eq!(&*full.get(*id), v);
        }
    }

    /// Numbers are kept in their ids (no text) and read back as written; anything
    /// else that looks like a number is text, kept as it is.
    #[test]
    fn numbers_are_kept_in_their_ids_and_read_back_as_written() {
        let mut v = Values::default();
        let numbers = ["0", "7", "10", "123456789", "2147483646"];
        let texts = [
            "",
            "00",
            "01",
            "-1",
            "+1",
            "1.0",
            " 1",
            "1 ",
            "2147483647",
            "9999999999",
            "99999999999",
            "١",
            "x1",
            "1/2",
        ];
        let ids: Vec<ValId> = numbers.iter().chain(&texts).map(|s| v.push(s)).collect();
        assert_eq!(v.ends.len(), texts.len(), "only the texts take room");
        for (id, s) in ids.iter().zip(numbers.iter().chain(&texts)) {
            assert_eq!(&*v.get(*id), *s);
        }
        assert_eq!(number("2147483646"), Some(2147483646));
        assert_eq!(number("2147483647"), None);
        let mut rng = 0x9e3779b97f4a7c15u64;
        for _ in 0..10_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let n = rng % (1 << 33);
            let s = n.to_string();
            let id = v.push(&s);
            assert_eq!(&*v.get(id), s);
            assert_eq!(id.index() >= NUMBER, n < (NUMBER - 1) as u64);
        }
    }
}
