//! The `report` step: records to a CSV table and SVG plots — time against thread
//! count per decider (log scale, an *unknown* drawn at the timeout), the cactus plot
//! (instances solved against time, as in SAT and verification competitions), and time
//! against trace length.

use super::records::{Header, Record};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// The columns of [`table`].
pub const COLUMNS: &str = "id,family,events,threads,seed,decider,semantics,verdict,seconds,\
decide_seconds,peak_mib,solver_calls,conflicts,lazy_cuts,propagated_cuts,jumps_tried,reason";

/// One CSV row per record ([`COLUMNS`]); empty cells where a run has no such figure.
pub fn table(records: &[Record]) -> String {
    let mut s = String::from(COLUMNS);
    s.push('\n');
    let cell = |v: Option<String>| v.unwrap_or_default();
    for r in records {
        // A counter by its JSON key (schema 2: sat's and fpt's own under `auto`), or
        // by its name in records written before schema 2.
        let count = |k: &str, before: &str| {
            let c = &r.counts;
            let found = [&c[k], &c["sat"][k], &c["fpt"][k], &c[before]]
                .into_iter()
                .find_map(|v| v.as_u64());
            cell(found.map(|v| v.to_string()))
        };
        let quote = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
        let row = [
            quote(&r.id),
            r.family.clone(),
            cell(r.events.map(|v| v.to_string())),
            cell(r.threads.map(|v| v.to_string())),
            cell(r.params.get("seed").map(|v| v.to_string())),
            r.decider.clone(),
            r.semantics.clone(),
            r.verdict.clone(),
            format!("{:.4}", r.seconds),
            cell(r.decide_seconds.map(|d| format!("{d:.4}"))),
            cell(r.peak_mib.map(|m| format!("{m:.1}"))),
            count("solver_calls", "solver calls"),
            count("conflicts", "conflicts"),
            count("lazy_cuts", "lazy cuts"),
            count("propagated_cuts", "propagated cuts"),
            count("jumps_tried", "jumps tried"),
            r.reason.as_deref().map(quote).unwrap_or_default(),
        ];
        s += &row.join(",");
        s.push('\n');
    }
    s
}

/// Least-squares slope of log(seconds) against log(events) over `(events, seconds)`
/// points with both positive: the fitted exponent of time in n (`None` with fewer than
/// two distinct lengths).
pub fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .map(|&(n, t)| (n.ln(), t.ln()))
        .collect();
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (pts.len() >= 2 && sxx > 0.0).then(|| sxy / sxx)
}

/// The fitted exponent of one series: a family's runs by one decider, in one semantics,
/// at one thread count and one value of every other parameter but the length and seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Exponent {
    pub family: String,
    pub decider: String,
    pub semantics: String,
    pub threads: u64,
    /// The other parameters of the series (`vars=2 pairs=1`…), empty when none vary.
    pub params: String,
    /// The slope of log time against log events ([`fitted_exponent`]) over the answered
    /// runs, with the decider's own time (`decide_seconds`; the whole run's where a
    /// record lacks it). Unknowns are left out, which flattens the slope where the
    /// long runs time out: see `unknown`.
    pub exponent: f64,
    /// The answered runs fitted, the distinct trace lengths among them, and the runs of
    /// the series left out as unknown.
    pub runs: usize,
    pub lengths: usize,
    pub unknown: usize,
}

/// The columns of [`exponents_csv`].
pub const EXPONENT_COLUMNS: &str =
    "family,decider,semantics,threads,params,exponent,runs,lengths,unknown";

/// Every series with answered runs at two trace lengths or more.
pub fn exponents(records: &[Record]) -> Vec<Exponent> {
    // (family, decider, semantics, threads, other parameters) → (points, unknowns).
    type Series = (String, String, String, u64, String);
    let mut by: BTreeMap<Series, (Vec<(f64, f64)>, usize)> = BTreeMap::new();
    for r in records {
        let (Some(n), Some(k)) = (r.events, r.threads) else {
            continue;
        };
        let other: Vec<String> = r
            .params
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(key, _)| {
                        !matches!(key.as_str(), "events" | "seed" | "threads" | "file")
                    })
                    .map(|(key, v)| format!("{key}={v}"))
                    .collect()
            })
            .unwrap_or_default();
        let key = (
            r.family.clone(),
            r.decider.clone(),
            r.semantics.clone(),
            k,
            other.join(" "),
        );
        let e = by.entry(key).or_default();
        if r.answered() {
            let t = r.decide_seconds.unwrap_or(r.seconds);
            if t > 0.0 {
                e.0.push((n as f64, t));
            }
        } else if r.verdict == "unknown" {
            e.1 += 1;
        }
    }
    by.into_iter()
        .filter_map(
            |((family, decider, semantics, threads, params), (pts, unknown))| {
                let mut lengths: Vec<u64> = pts.iter().map(|p| p.0 as u64).collect();
                lengths.sort_unstable();
                lengths.dedup();
                Some(Exponent {
                    family,
                    decider,
                    semantics,
                    threads,
                    params,
                    exponent: fitted_exponent(&pts)?,
                    runs: pts.len(),
                    lengths: lengths.len(),
                    unknown,
                })
            },
        )
        .collect()
}

/// [`exponents`] as CSV ([`EXPONENT_COLUMNS`]).
pub fn exponents_csv(exponents: &[Exponent]) -> String {
    let mut s = String::from(EXPONENT_COLUMNS);
    s.push('\n');
    for e in exponents {
        s += &format!(
            "{},{},{},{},\"{}\",{:.3},{},{},{}\n",
            e.family,
            e.decider,
            e.semantics,
            e.threads,
            e.params.replace('"', "'"),
            e.exponent,
            e.runs,
            e.lengths,
            e.unknown
        );
    }
    s
}

/// A trace (in one semantics) on which deciders answered differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    /// The run id without decider and semantics.
    pub trace: String,
    pub semantics: String,
    /// Each answering decider and its verdict.
    pub answers: Vec<(String, String)>,
}

/// The traces on which two deciders gave different verdicts: a bug in one of them (the
/// records of a matrix with one decider have none).
pub fn disagreements(records: &[Record]) -> Vec<Disagreement> {
    let mut by: BTreeMap<(&str, &str), Vec<(String, String)>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.answered()) {
        // The id is `key/decider/semantics`, and a decider may hold a `/` (`sat/z3`).
        let Some(key) =
            r.id.strip_suffix(&format!("/{}/{}", r.decider, r.semantics))
        else {
            continue;
        };
        by.entry((key, &r.semantics))
            .or_default()
            .push((r.decider.clone(), r.verdict.clone()));
    }
    by.into_iter()
        .filter(|(_, answers)| answers.iter().any(|a| a.1 != answers[0].1))
        .map(|((trace, semantics), answers)| Disagreement {
            trace: trace.into(),
            semantics: semantics.into(),
            answers,
        })
        .collect()
}

/// A run's time for the plots and whether it answered: an answer's wall time, or the
/// timeout for an unknown; `None` for an error (not a measurement).
fn time_of(r: &Record, timeout: f64) -> Option<(f64, bool)> {
    if r.answered() {
        Some((r.seconds.max(1e-4), true))
    } else {
        (r.verdict == "unknown").then_some((timeout, false))
    }
}

/// A plot's series: the decider, with the semantics when a matrix has both.
fn series(r: &Record, both: bool) -> String {
    if both {
        format!("{} ({})", r.decider, r.semantics)
    } else {
        r.decider.clone()
    }
}

/// Median of a non-empty list.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

const SIZE: (u32, u32) = (900, 560);

/// An x axis of the per-family plots: its name, its value, log scale, its title word.
type Axis = (&'static str, fn(&Record) -> Option<u64>, bool, &'static str);

/// Why a plot is left out.
const NO_VALUES: &str = "no run with a measured time has a value for";

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

/// Why a plot was not drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// No measured run of the plot's family says the size on its x axis.
    #[error("{title}: {NO_VALUES} {x}")]
    NoValues { title: String, x: String },
    /// The plotting library failed (its message).
    #[error("{0}")]
    Drawing(String),
}

type PlotResult = Result<(), PlotError>;

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Drawing(e.to_string())
}

/// A tick label only on whole numbers (thread counts, runs).
fn whole(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// The legend, upper left.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> PlotResult {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// Median time against `x` (thread count or events) per decider, every run as a dot
/// (a cross at the timeout when unknown); `log_x` for trace lengths.
pub fn plot_against<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    records: &[&Record],
    timeout: f64,
    x_of: impl Fn(&Record) -> Option<f64>,
    x_desc: &str,
    log_x: bool,
    title: &str,
) -> PlotResult {
    area.fill(&WHITE).map_err(err)?;
    let both = records.iter().any(|r| r.semantics != records[0].semantics);
    let mut by: BTreeMap<String, BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    let mut dots: Vec<(String, f64, f64, bool)> = Vec::new();
    for r in records {
        let (Some(x), Some((t, answered))) = (x_of(r), time_of(r, timeout)) else {
            continue;
        };
        let name = series(r, both);
        by.entry(name.clone())
            .or_default()
            .entry(x.to_bits())
            .or_default()
            .push(t);
        dots.push((name, x, t, answered));
    }
    if dots.is_empty() {
        return Err(PlotError::NoValues {
            title: title.to_string(),
            x: x_desc.to_string(),
        });
    }
    let (xmin, xmax) = dots
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), d| (a.min(d.1), b.max(d.1)));
    let ymin = dots.iter().map(|d| d.2).fold(timeout, f64::min).max(1e-4) / 2.0;
    let ymax = timeout * 2.0;
    let pad = if log_x { 1.0 } else { 0.5 };
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70);
    let deciders: Vec<&String> = by.keys().collect();
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(RGBColor(238, 238, 238))
                .x_label_formatter(&|x| whole((*x).into()))
                .x_desc(x_desc)
                .y_desc("seconds (unknown: at the timeout)")
                .draw()
                .map_err(err)?;
            chart
                .draw_series(LineSeries::new(
                    [(xmin, timeout), (xmax, timeout)],
                    BLACK.mix(0.4).stroke_width(1),
                ))
                .map_err(err)?
                .label(format!("timeout {timeout} s"))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.mix(0.4)));
            for (i, d) in deciders.iter().enumerate() {
                let c = colour(i);
                let mut line: Vec<(f64, f64)> = by[*d]
                    .iter()
                    .map(|(x, ts)| (f64::from_bits(*x), median(&mut ts.clone())))
                    .collect();
                line.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart
                    .draw_series(LineSeries::new(line, c.stroke_width(2)))
                    .map_err(err)?
                    .label(d.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                    });
                let mine = dots.iter().filter(|t| &t.0 == *d);
                chart
                    .draw_series(
                        mine.map(|&(_, x, t, answered)| -> DynElement<DB, (f64, f64)> {
                            if answered {
                                Circle::new((x, t), 3, c.filled()).into_dyn()
                            } else {
                                Cross::new((x, t), 5, c.stroke_width(2)).into_dyn()
                            }
                        }),
                    )
                    .map_err(err)?;
            }
            legend(&mut chart)?;
        }};
    }
    if log_x {
        draw!(builder
            .build_cartesian_2d(
                ((xmin / 2.0).max(1.0)..(xmax * 2.0).max(2.0)).log_scale(),
                (ymin..ymax).log_scale()
            )
            .map_err(err)?);
    } else {
        draw!(builder
            .build_cartesian_2d((xmin - pad)..(xmax + pad), (ymin..ymax).log_scale())
            .map_err(err)?);
    }
    area.present().map_err(err)
}

/// The cactus plot: per decider, its answered runs sorted by time — the k-th point is
/// the time within which it answered k runs.
pub fn plot_cactus<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    records: &[&Record],
    timeout: f64,
    title: &str,
) -> PlotResult {
    area.fill(&WHITE).map_err(err)?;
    let both = records.iter().any(|r| r.semantics != records[0].semantics);
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in records {
        let v = by.entry(series(r, both)).or_default();
        if let Some((t, true)) = time_of(r, timeout) {
            v.push(t);
        }
    }
    let most = by.values().map(Vec::len).max().unwrap_or(0).max(1);
    let ymin = by
        .values()
        .flatten()
        .copied()
        .fold(timeout, f64::min)
        .max(1e-4)
        / 2.0;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..(most as f64 + 1.0), (ymin..timeout * 2.0).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(238, 238, 238))
        .x_label_formatter(&|x| whole(*x))
        .x_desc("runs answered")
        .y_desc("seconds")
        .draw()
        .map_err(err)?;
    for (i, (d, ts)) in by.iter_mut().enumerate() {
        ts.sort_by(|a, b| a.total_cmp(b));
        let c = colour(i);
        let pts: Vec<(f64, f64)> = ts
            .iter()
            .enumerate()
            .map(|(k, &t)| ((k + 1) as f64, t))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(err)?
            .label(format!("{d} ({} answered)", ts.len()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
            .map_err(err)?;
    }
    legend(&mut chart)?;
    area.present().map_err(err)
}

/// Plots as (file name, SVG text), and why a plot was left out.
pub type Plots = (Vec<(String, String)>, Vec<String>);

/// Every plot of a records file as SVG text, (file name, SVG), and why a plot was left
/// out (a family none of whose measured runs says its size).
pub fn svg_plots(header: &Header, records: &[Record]) -> Result<Plots, PlotError> {
    let timeout = header.config.timeout;
    let mut families: Vec<&str> = records.iter().map(|r| r.family.as_str()).collect();
    families.sort_unstable();
    families.dedup();
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut svg = |name: String, f: &dyn Fn(&DrawingArea<SVGBackend, Shift>) -> PlotResult| {
        let mut s = String::new();
        let drawn = {
            let area = SVGBackend::with_string(&mut s, SIZE).into_drawing_area();
            f(&area)
        };
        match drawn {
            Ok(()) => out.push((name, s)),
            Err(e @ PlotError::NoValues { .. }) => skipped.push(format!("{name}: {e}")),
            Err(e) => return Err(e),
        }
        Ok::<(), PlotError>(())
    };
    for fam in &families {
        let rs: Vec<&Record> = records.iter().filter(|r| r.family == *fam).collect();
        let axes: [Axis; 2] = [
            ("threads", |r| r.threads, false, "threads"),
            ("events", |r| r.events, true, "trace length"),
        ];
        for (axis, value, log_x, what) in axes {
            svg(format!("time-vs-{axis}-{fam}.svg"), &|a| {
                let title = format!("{fam}: time against {what}");
                let x = |r: &Record| value(r).map(|v| v as f64);
                plot_against(a, &rs, timeout, x, axis, log_x, &title)
            })?;
        }
    }
    let all: Vec<&Record> = records.iter().collect();
    svg("cactus.svg".into(), &|a| {
        plot_cactus(a, &all, timeout, "runs answered within a time (cactus)")
    })?;
    Ok((out, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::records::RECORD_SCHEMA;

    fn record(id: &str, decider: &str, verdict: &str, events: u64, seconds: f64) -> Record {
        Record {
            schema: RECORD_SCHEMA.into(),
            id: format!("{id}/{decider}/exact"),
            family: "serial".into(),
            params: serde_json::json!({}),
            decider: decider.into(),
            semantics: "exact".into(),
            verdict: verdict.into(),
            reason: None,
            exit: None,
            seconds: seconds + 1.0,
            decide_seconds: Some(seconds),
            peak_mib: None,
            jobs: 1,
            events: Some(events),
            threads: Some(4),
            counts: serde_json::Value::Null,
        }
    }

    #[test]
    fn the_exponent_of_a_power_law_is_its_power() {
        let pts: Vec<(f64, f64)> = [1e3, 1e4, 1e5].iter().map(|&n| (n, 2e-6 * n * n)).collect();
        assert!((fitted_exponent(&pts).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(fitted_exponent(&pts[..1]), None);
        assert_eq!(fitted_exponent(&[(10.0, 1.0), (10.0, 2.0)]), None);
    }

    #[test]
    fn exponents_fit_the_deciders_own_time_per_series() {
        let mut rs = Vec::new();
        for (i, n) in [1000u64, 10_000, 100_000].into_iter().enumerate() {
            let t = 1e-6 * n as f64;
            rs.push(record(&format!("serial/n={n}"), "fpt", "violation", n, t));
            rs.push(record(
                &format!("serial/n={n}"),
                "sat/z3",
                "violation",
                n,
                t * t,
            ));
            // An unknown is no point of the fit.
            let v = if i == 2 { "unknown" } else { "violation" };
            rs.push(record(&format!("serial/n={n}"), "auto", v, n, 1.0));
        }
        let e = exponents(&rs);
        let of = |d: &str| e.iter().find(|e| e.decider == d).map(|e| e.exponent);
        assert!((of("fpt").unwrap() - 1.0).abs() < 1e-9, "{e:?}");
        assert!((of("sat/z3").unwrap() - 2.0).abs() < 1e-9, "{e:?}");
        let auto = e.iter().find(|e| e.decider == "auto").unwrap();
        assert_eq!(
            (auto.runs, auto.lengths, auto.unknown, auto.exponent),
            (2, 2, 1, 0.0)
        );
        let csv = exponents_csv(&e);
        assert!(csv.starts_with(EXPONENT_COLUMNS), "{csv}");
        assert!(
            csv.contains("serial,sat/z3,exact,4,\"\",2.000,3,3,0"),
            "{csv}"
        );
    }

    #[test]
    fn deciders_that_answer_differently_are_reported() {
        let rs = vec![
            record("dense/k=2", "fpt", "violation", 40, 0.1),
            record("dense/k=2", "sat/cadical", "violation", 40, 0.1),
            record("dense/k=3", "fpt", "unknown", 40, 0.1),
            record("dense/k=3", "sat/cadical", "serializable", 40, 0.1),
            record("dense/k=4", "fpt", "violation", 40, 0.1),
            record("dense/k=4", "sat/cadical", "serializable", 40, 0.1),
        ];
        let d = disagreements(&rs);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].trace, "dense/k=4");
        assert_eq!(
            d[0].answers,
            vec![
                ("fpt".to_string(), "violation".to_string()),
                ("sat/cadical".to_string(), "serializable".to_string())
            ]
        );
    }
}
