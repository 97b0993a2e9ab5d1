//! The process's peak resident set (`mem::peak_rss`, `mem::reset_peak_rss`). Alone in
//! its test binary: the peak is the whole process's, so tests allocating on other
//! threads of the same binary made it flaky (bug: peak_rss_test_shared_its_process).

use tsoser::mem::{peak_rss, reset_peak_rss};

#[test]
fn the_peak_resident_set_sees_a_large_buffer_and_resets() {
    if !reset_peak_rss() {
        return; // not Linux, or /proc refused: nothing to measure
    }
    let before = peak_rss().unwrap();
    let v = vec![1u8; 64 << 20];
    std::hint::black_box(&v);
    let with = peak_rss().unwrap();
    assert!(with >= before + (60 << 20), "{before} → {with}");
    drop(v);
    assert!(reset_peak_rss());
    assert!(peak_rss().unwrap() < with - (32 << 20));
}
