//! Names as the readers compare them: a short name as one integer, a name `X.N` as
//! its prefix and number (the transaction names `gen` and `convert` write, which the
//! readers tell apart by their numbers instead of a table of every name).

/// A name of at most 15 bytes as one integer: its bytes, then its length in the last
/// byte (so comparing and hashing it is a few instructions, with no call to `memcmp`).
#[inline]
pub(crate) fn short(name: &str) -> Option<u128> {
    let b = name.as_bytes();
    let n = b.len();
    // The bytes in two words read whole (overlapping when shorter), not copied one by
    // one: no call to `memcpy` per name.
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as u64;
    let (lo, hi) = match n {
        0 => (0, 0),
        1..4 => {
            let byte = |i: usize| (b[i] as u64) << (8 * i);
            (byte(0) | byte(n / 2) | byte(n - 1), 0)
        }
        4..8 => (half(0) | half(n - 4) << (8 * (n - 4)), 0),
        8..16 => (
            word(0),
            word(n - 8).checked_shr(8 * (16 - n) as u32).unwrap_or(0),
        ),
        _ => return None,
    };
    Some(lo as u128 | (hi as u128) << 64 | (n as u128) << 120)
}

/// The number `digits` writes in decimal, if they are at most `most` ASCII digits
/// (at most 19: a u64) without a leading zero (but `0` itself): one pass, each digit
/// checked as it is added.
#[inline(always)]
pub(crate) fn decimal(digits: &[u8], most: usize) -> Option<u64> {
    debug_assert!(most <= 19);
    if digits.is_empty() || digits.len() > most || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let mut n = 0u64;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u64::from(d);
    }
    Some(n)
}

/// `name` split as `X.N`, N a number without leading zeros (the names `convert` and
/// `gen` give transactions).
///
/// One backward pass over the name's last digits (a `rsplit_once` and a `parse` were
/// two calls a block of the STD reader's).
#[inline]
pub(crate) fn numbered(name: &str) -> Option<(&str, u64)> {
    let b = name.as_bytes();
    let mut p = b.len();
    while p > 0 && b[p - 1].is_ascii_digit() {
        p -= 1;
    }
    // The digits after the last `.`: all of the name's last digits, just after it.
    let digits = &b[p..];
    if p == 0 || b[p - 1] != b'.' {
        return None;
    }
    // 19 digits or fewer fit in a u64; 20 may not.
    let n = match digits.len() {
        ..20 => decimal(digits, 19)?,
        _ if digits[0] == b'0' => return None,
        _ => name[p..].parse().ok()?,
    };
    Some((&name[..p - 1], n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words read whole give the bytes copied one by one.
    #[test]
    fn short_names_are_their_bytes_and_length() {
        let text = "abcdefghijklmnopq";
        for n in 0..=text.len() {
            let name = &text[..n];
            let want = (n < 16).then(|| {
                let mut a = [0u8; 16];
                a[..n].copy_from_slice(name.as_bytes());
                a[15] = n as u8;
                u128::from_le_bytes(a)
            });
            assert_eq!(short(name), want, "{name}");
        }
    }

    /// The pass over the digits splits as the last `.` and a parse of the rest do.
    #[test]
    fn numbered_is_the_split_at_the_last_dot() {
        fn split(name: &str) -> Option<(&str, u64)> {
            let (x, n) = name.rsplit_once('.')?;
            let canonical = !n.is_empty()
                && n.bytes().all(|c| c.is_ascii_digit())
                && (n == "0" || !n.starts_with('0'));
            Some((x, n.parse().ok().filter(|_| canonical)?))
        }
        let pieces = [
            "t",
            "0",
            "1",
            "9",
            ".",
            "..",
            "x7",
            "é",
            "00",
            "18446744073709551615",
            "18446744073709551616",
        ];
        let mut names = vec![String::new()];
        for _ in 0..4 {
            names = names
                .iter()
                .flat_map(|n| pieces.iter().map(move |p| format!("{n}{p}")))
                .collect();
            for name in &names {
                assert_eq!(numbered(name), split(name), "{name}");
            }
        }
    }

    #[test]
    fn numbered_names_are_canonical_numbers() {
        assert_eq!(numbered("t5.12"), Some(("t5", 12)));
        assert_eq!(numbered("a.b.0"), Some(("a.b", 0)));
        for name in [
            "t5.",
            "t5.01",
            "t5.+1",
            "t5",
            "t5.1x",
            "t.99999999999999999999",
        ] {
            assert_eq!(numbered(name), None, "{name}");
        }
    }
}
