//! Renders `report`'s SVG plots to PNG, to look at them where no browser is at hand:
//! `cargo run --example svg_to_png -- DIR` writes `x.png` beside each `x.svg` of DIR.
//! (tests/experiment.rs renders the same way and checks what is drawn.)

fn main() {
    let dir = std::env::args().nth(1).expect("usage: svg_to_png DIR");
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    // plotters asks for "sans-serif"; map it to a font the machine has.
    let family = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "FreeSans"]
        .into_iter()
        .find(|f| {
            opt.fontdb
                .faces()
                .any(|face| face.families.iter().any(|(n, _)| n == f))
        });
    if let Some(f) = family {
        opt.fontdb_mut().set_sans_serif_family(f);
    }
    for entry in std::fs::read_dir(&dir).expect("a directory") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "svg") {
            continue;
        }
        let svg = std::fs::read_to_string(&path).expect("readable");
        let tree = resvg::usvg::Tree::from_str(&svg, &opt).expect("an SVG");
        let size = tree.size().to_int_size();
        let mut px = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a size");
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut px.as_mut(),
        );
        let out = path.with_extension("png");
        px.save_png(&out).expect("writable");
        println!("{}", out.display());
    }
}
