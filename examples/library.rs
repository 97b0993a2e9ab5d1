//! The library's front door (README, "Library"): read a trace, decide it with the
//! default decider, print a violation's cycle or the verdict. `cargo run --example
//! library -- examples/rmw-sb.yaml`; `cargo test` builds it.
use tsoser::{decide, Algo, Budget, Question, Semantics::Exact, Verdict};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).expect("usage: library TRACE");
    let trace = tsoser::trace::read_file(path.as_ref())?;
    match decide(&trace, Question::Tso(Exact), Algo::AUTO, &Budget::default())?.verdict {
        Verdict::Violation(w) => print!(
            "{}",
            tsoser::output::witness::cycle_text(&trace, w.cycle(), None)
        ),
        other => println!("{other:?}"),
    }
    Ok(())
}
