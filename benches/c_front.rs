//! The C front end (issue 32's target: preprocessing, parsing and lowering of a 40 KB
//! `.i` file under 100 ms). The input is the repository's own Harris set harness
//! (`examples/c/burnim/harris.c`) with glibc's `<assert.h>` and `<pthread.h>`, 44 KB
//! once preprocessed — so the bench needs the system `cpp` (without one it prints
//! SKIPPED and measures nothing). Measured: the whole read of the `.c` file (a `cpp`
//! process each time), `cpp` alone, and of the preprocessed text: lang-c's parse
//! alone, and parse and lowering together (`read_preprocessed`, what a `.i` file
//! costs). When SV-COMP's pthread tasks are beside the checkout, also the read of the
//! largest `.i` file of theirs that reads to a program.
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use tsoser::program::c::preprocess::preprocess;
use tsoser::program::c::read_preprocessed;
use tsoser::program::{read_program, ReadOptions};

fn front_end(c: &mut Criterion) {
    let harris = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c/burnim/harris.c");
    let text = match preprocess(&harris, &ReadOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("SKIPPED: the C front-end bench needs a preprocessor: {e}");
            return;
        }
    };
    let mut g = c.benchmark_group("c-front-end");
    g.sample_size(20);
    let kb = text.len() / 1000;
    g.bench_function(format!("harris-{kb}kB/cpp+parse+lower"), |b| {
        b.iter(|| read_program(&harris).unwrap().threads.len())
    });
    g.bench_function(format!("harris-{kb}kB/cpp"), |b| {
        b.iter(|| preprocess(&harris, &ReadOptions::default()).unwrap().len())
    });
    let config = lang_c::driver::Config::with_gcc();
    g.bench_function(format!("harris-{kb}kB/parse"), |b| {
        b.iter(|| {
            lang_c::driver::parse_preprocessed(&config, text.clone())
                .unwrap()
                .unit
                .0
                .len()
        })
    });
    g.bench_function(format!("harris-{kb}kB/parse+lower"), |b| {
        b.iter(|| {
            read_preprocessed(&text, "harris.i", &Default::default())
                .unwrap()
                .threads
                .len()
        })
    });
    if let Some((name, path)) = largest_svcomp_task() {
        g.bench_function(format!("svcomp-{name}/parse+lower"), |b| {
            b.iter(|| read_program(&path).unwrap().threads.len())
        });
    }
    g.finish();
}

/// The largest `.i` task of SV-COMP's pthread suites beside the checkout that reads to a
/// program, if any.
fn largest_svcomp_task() -> Option<(String, std::path::PathBuf)> {
    let external = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external");
    std::fs::read_dir(&external)
        .ok()?
        .flatten()
        .filter(|d| {
            d.file_name()
                .to_string_lossy()
                .starts_with("svcomp-pthread-")
        })
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "i") && read_program(p).is_ok())
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .max()
        .map(|(len, p)| {
            let stem = p.file_stem().unwrap_or_default().to_string_lossy();
            (format!("{stem}-{}kB", len / 1000), p)
        })
}

criterion_group!(benches, front_end);
criterion_main!(benches);
