//! Renders `report`'s SVG plots to PNG, to look at them where no browser is at hand:
//! `cargo run --example svg_to_png -- DIR` writes `x.png` beside each `x.svg` of DIR.
//! (tests/experiment.rs renders the same way and checks what is drawn.)

#[path = "../tests/common/png.rs"]
mod png;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: svg_to_png DIR");
    for entry in std::fs::read_dir(&dir).expect("a directory") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "svg") {
            continue;
        }
        let svg = std::fs::read_to_string(&path).expect("readable");
        let out = path.with_extension("png");
        png::render(&svg).save_png(&out).expect("writable");
        println!("{}", out.display());
    }
}
