//! The report's plots: line charts of a figure against a run's size, drawn as SVG. The x axis is
//! logarithmic and ticked at the sizes measured; the y axis is linear from zero, or logarithmic
//! for latencies. Text is left to the viewer's fonts (SVG `<text>`), so no font is loaded.

use std::path::Path;

use anyhow::Context;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

use super::summary::format_number;
use super::{figures_of, Figures, HttpFigures, Measured};

/// Every plot's file name, in the report's order.
pub const FILES: [&str; 5] = ["digest-throughput.svg", "digest-memory.svg", "http-latency.svg", "http-throughput.svg", "ingest-rate.svg"];
/// The size of every plot, in pixels.
const SIZE: (u32, u32) = (900, 540);
/// Series colours, in the order the series are drawn (distinct in print and for most colour
/// blindness: blue, orange, green, purple).
const COLOURS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(230, 120, 20), RGBColor(44, 160, 44), RGBColor(148, 80, 180)];

/// One plot: its file, title, axis labels and series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The file name in the report's directory, e.g. `digest-throughput.svg`.
    pub file: &'static str,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// A logarithmic y axis (for latencies) instead of a linear one from zero.
    pub y_log: bool,
    pub series: Vec<Series>,
}

/// A named series of (x, y) points, drawn as a line through circles (a circle alone when it
/// has one point).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Every chart the figures have points for, in the report's order.
pub fn charts(measured: &[Measured]) -> Vec<Chart> {
    let all = [digest_throughput(measured), digest_memory(measured), http_latency(measured), http_throughput(measured), ingest_rate(measured)];
    all.into_iter().filter(|chart| chart.series.iter().any(|series| !series.points.is_empty())).collect()
}

/// Draws `chart` as an SVG file at `path`.
pub fn draw(chart: &Chart, path: &Path) -> anyhow::Result<()> {
    let points = || chart.series.iter().flat_map(|series| series.points.iter().copied());
    let xs: Vec<f64> = sorted_distinct(points().map(|(x, _)| x).filter(|x| *x > 0.0));
    let (Some(&x_min), Some(&x_max)) = (xs.first(), xs.last()) else {
        anyhow::bail!("{}: no points to draw", chart.file);
    };
    let x_range = (x_min / 1.6..x_max * 1.6).log_scale().with_key_points(xs.clone());
    // Headroom above the highest point keeps the legend (upper left) off the lines.
    let y_max = points().map(|(_, y)| y).fold(0.0_f64, f64::max);
    let drawn = if chart.y_log {
        let y_min = points().map(|(_, y)| y).filter(|y| *y > 0.0).fold(f64::INFINITY, f64::min);
        let y_min = if y_min.is_finite() { y_min } else { 0.01 };
        let (low, high) = (y_min / 2.0, (y_max * 4.0).max(y_min * 8.0));
        draw_with(chart, path, x_range, (low..high).log_scale().with_key_points(log_ticks(low, high)))
    } else {
        draw_with(chart, path, x_range, 0.0..(y_max * 1.3).max(1.0))
    };
    drawn.with_context(|| format!("drawing {}", path.display()))
}

/// Draws the chart on the given axes (their types differ between linear and logarithmic).
fn draw_with<X, Y>(chart: &Chart, path: &Path, x_range: X, y_range: Y) -> anyhow::Result<()>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let plot_error = |error: &dyn std::fmt::Display| anyhow::anyhow!("{error}");
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|error| plot_error(&error))?;
    let mut context = ChartBuilder::on(&root)
        .caption(&chart.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(84)
        .build_cartesian_2d(x_range, y_range)
        .map_err(|error| plot_error(&error))?;
    let label = |value: &f64| format_number(*value);
    context
        .configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&label)
        .y_label_formatter(&label)
        .y_labels(8)
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|error| plot_error(&error))?;
    for (series, colour) in chart.series.iter().zip(COLOURS.iter().cycle()) {
        let colour = *colour;
        let line = LineSeries::new(series.points.iter().copied(), colour.stroke_width(2));
        context
            .draw_series(line)
            .map_err(|error| plot_error(&error))?
            .label(series.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3)));
        // Each measured point as a dot (a series of one point has no line).
        let points = series.points.iter().map(|point| Circle::new(*point, 4, colour.filled()));
        context.draw_series(points).map_err(|error| plot_error(&error))?;
    }
    context
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|error| plot_error(&error))?;
    root.present().map_err(|error| plot_error(&error))?;
    Ok(())
}

fn digest_throughput(measured: &[Measured]) -> Chart {
    let runs = figures_of(measured, Figures::as_digest);
    Chart {
        file: "digest-throughput.svg",
        title: "Weekly pass: users served per second".into(),
        x_label: "users (log scale)".into(),
        y_label: "users/s".into(),
        y_log: false,
        series: vec![
            Series { label: "pass and mail rendering".into(), points: runs.iter().map(|run| (run.users as f64, run.users_per_second)).collect() },
            Series {
                label: "pass alone (digest time)".into(),
                points: runs
                    .iter()
                    .filter(|run| run.digest_seconds > 0.0)
                    .map(|run| (run.users as f64, run.users as f64 / run.digest_seconds))
                    .collect(),
            },
        ],
    }
}

fn digest_memory(measured: &[Measured]) -> Chart {
    let runs = figures_of(measured, Figures::as_digest);
    Chart {
        file: "digest-memory.svg",
        title: "Weekly pass: peak memory".into(),
        x_label: "users (log scale)".into(),
        y_label: "peak RSS (MiB)".into(),
        y_log: false,
        series: vec![
            Series {
                label: "peak RSS of the pass".into(),
                points: runs.iter().filter_map(|run| Some((run.users as f64, run.peak_rss_mib?))).collect(),
            },
            Series {
                label: "peak RSS building the index".into(),
                points: runs.iter().filter_map(|run| Some((run.users as f64, run.index_peak_rss_mib?))).collect(),
            },
        ],
    }
}

fn http_latency(measured: &[Measured]) -> Chart {
    let runs: Vec<&HttpFigures> = figures_of(measured, Figures::as_http).into_iter().filter(|run| run.is_me_only()).collect();
    let quantile = |label: &str, pick: fn(&super::CallLatency) -> f64| Series {
        label: label.into(),
        points: runs.iter().filter_map(|run| Some((run.connections as f64, pick(run.endpoints.get("me")?)))).collect(),
    };
    Chart {
        file: "http-latency.svg",
        title: "GET /api/auth/me: latency".into(),
        x_label: "keep-alive connections (log scale)".into(),
        y_label: "latency (ms, log scale)".into(),
        y_log: true,
        series: vec![
            quantile("p50", |latency| latency.p50_ms),
            quantile("p99", |latency| latency.p99_ms),
            quantile("p99.9", |latency| latency.p999_ms),
        ],
    }
}

fn http_throughput(measured: &[Measured]) -> Chart {
    let runs = figures_of(measured, Figures::as_http);
    let series = |label: &str, me_only: bool| Series {
        label: label.into(),
        points: runs.iter().filter(|run| run.is_me_only() == me_only).map(|run| (run.connections as f64, run.requests_per_second)).collect(),
    };
    Chart {
        file: "http-throughput.svg",
        title: "HTTP: requests answered per second".into(),
        x_label: "keep-alive connections (log scale)".into(),
        y_label: "requests/s".into(),
        y_log: false,
        series: vec![series("GET /api/auth/me alone", true), series("the whole dashboard mix", false)],
    }
}

fn ingest_rate(measured: &[Measured]) -> Chart {
    let points = figures_of(measured, Figures::as_ingest).iter().map(|ingest| (ingest.batch as f64, ingest.papers_per_second)).collect();
    Chart {
        file: "ingest-rate.svg",
        title: "Ingest: papers parsed, deduplicated and indexed per second".into(),
        x_label: "papers per index commit (log scale)".into(),
        y_label: "papers/s".into(),
        y_log: false,
        series: vec![Series { label: "ingest of a week".into(), points }],
    }
}

/// Ticks of a logarithmic axis from `low` to `high`: 1, 2 and 5 times the powers of ten.
fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    if !(low > 0.0 && high > low) {
        return ticks;
    }
    let mut power = 10f64.powf(low.log10().floor());
    while power <= high {
        for multiple in [1.0, 2.0, 5.0] {
            let tick = multiple * power;
            if (low..=high).contains(&tick) {
                ticks.push(tick);
            }
        }
        power *= 10.0;
    }
    ticks
}

fn sorted_distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(y_log: bool, series: Vec<Series>) -> Chart {
        Chart { file: "test.svg", title: "A title".into(), x_label: "x things".into(), y_label: "y things".into(), y_log, series }
    }

    #[test]
    fn a_chart_is_drawn_with_its_labels_series_and_legend() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("test.svg");
        let series = vec![
            Series { label: "first".into(), points: vec![(16.0, 2.5), (64.0, 4.0), (256.0, 12.0)] },
            Series { label: "lonely".into(), points: vec![(64.0, 30.0)] },
        ];
        for y_log in [false, true] {
            draw(&chart(y_log, series.clone()), &path)?;
            let svg = std::fs::read_to_string(&path)?;
            for text in ["<svg", "A title", "x things", "y things", "first", "lonely", "<polyline", "<circle", "\n256\n</text>"] {
                assert!(svg.contains(text), "{text} in a chart (log y: {y_log}):\n{svg}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_chart_without_points_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let empty = chart(false, vec![Series { label: "none".into(), points: vec![] }]);
        assert!(draw(&empty, &dir.path().join("empty.svg")).is_err());
    }

    #[test]
    fn every_chart_has_a_known_file_name() {
        assert!(charts(&[]).is_empty(), "no figures, no plots");
        let names = [digest_throughput(&[]), digest_memory(&[]), http_latency(&[]), http_throughput(&[]), ingest_rate(&[])].map(|chart| chart.file);
        assert_eq!(names, FILES);
    }

    #[test]
    fn a_logarithmic_axis_is_ticked_at_one_two_and_five() {
        assert_eq!(log_ticks(0.3, 60.0), vec![0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log_ticks(1.0, 1.5), vec![1.0]);
        assert!(log_ticks(0.0, 10.0).is_empty());
    }

    #[test]
    fn sizes_are_sorted_once_each() {
        assert_eq!(sorted_distinct([256.0, 16.0, 256.0, 64.0].into_iter()), vec![16.0, 64.0, 256.0]);
    }
}
