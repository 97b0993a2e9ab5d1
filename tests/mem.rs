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

mod counting {
    //! Bytes allocated on this thread: live and the most live since [`start`].
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    pub struct Counting;

    fn add(n: isize) {
        let _ = LIVE.try_with(|l| {
            l.set(l.get() + n);
            let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
        });
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(layout.size() as isize);
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-(layout.size() as isize));
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            add(new as isize - layout.size() as isize);
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// From now on, the peak counts from what is live.
    pub fn start() {
        PEAK.with(|p| p.set(LIVE.with(Cell::get)));
    }

    /// The most bytes live on this thread since [`start`], above what was live then.
    pub fn grown_since(live_at_start: isize) -> isize {
        PEAK.with(Cell::get) - live_at_start
    }

    pub fn live() -> isize {
        LIVE.with(Cell::get)
    }
}

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

/// Counts what is written.
struct Sink(usize);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bug json_witness_was_held_whole: `check --json` built the full witness (every step
/// of the execution, then a `serde_json::Value` of it, then its text) before printing:
/// 21 GiB for the 2.7 GB answer on a 10⁷-event trace. The steps are now made one at a
/// time as they are written, so writing the witness holds a few KiB whatever its size.
#[test]
fn a_full_json_witness_is_written_without_being_held() {
    use tsoser::check::decide::{decide, Algo, Budget, Question};
    use tsoser::trace::gen::{generate, Shape};
    let shape = Shape {
        serial: true,
        ..Shape::realistic(100_000)
    };
    let t = generate(&shape, 1);
    let question = Question::Tso(tsoser::check::Semantics::Exact);
    let d = decide(&t, question, Algo::AUTO, &Budget::default()).unwrap();
    assert!(d.verdict.is_violation(), "the serial shape has a violation");
    let live = counting::live();
    counting::start();
    let w = tsoser::output::witness::witness_json(&t, &d.verdict).unwrap();
    let mut out = Sink(0);
    serde_json::to_writer_pretty(&mut out, &w).unwrap();
    let grown = counting::grown_since(live);
    assert!(out.0 > 20 << 20, "the witness is {} bytes of JSON", out.0);
    assert!(grown < 1 << 20, "writing {} bytes held {grown}", out.0);
}
