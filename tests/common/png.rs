//! SVG to PNG with resvg, as `report`'s plots are looked at: shared by
//! tests/experiment.rs and examples/svg_to_png.rs.

/// Renders an SVG; plotters asks for "sans-serif", mapped to a font the machine has.
pub fn render(svg: &str) -> resvg::tiny_skia::Pixmap {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
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
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("an SVG");
    let size = tree.size().to_int_size();
    let mut px = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("a size");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut px.as_mut(),
    );
    px
}
