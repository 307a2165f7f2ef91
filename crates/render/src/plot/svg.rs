//! Drawing a `Chart` as SVG: the layout (title, plot area, ticks, axis labels, legend
//! below), then the series, thinned in pixel space, each as one `<path>`.

use std::fmt::Write;

use super::axis::{self, position, Range, Tick};
use super::thin::{self, Px};
use super::{Axis, Band, Chart, Kind, Mark, Scale, Series, PALETTE};
use crate::export::html::escape;

/// Tick label size; titles and axis labels are a little larger.
const FONT: f64 = 11.0;
/// A sans-serif glyph's average width in ems: text is measured by estimate, since the
/// font is the reader's.
const GLYPH: f64 = 0.6;
/// Thinning cells, in tenths of a pixel: one dot per 3 px square (a dot is 3 px wide),
/// one cross or ring per 4 px.
const DOT_CELL: i64 = 30;
const MARK_CELL: i64 = 40;
const GRID: &str = "#e6e6e6";
const INK: &str = "#444";
const DIAGONAL: &str = "#999";

fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * GLYPH
}

/// `value` in tenths of a pixel, the precision coordinates are written to. The cast
/// saturates, and positions come from fractions of a finite canvas, so it cannot wrap.
fn tenths(value: f64) -> i64 {
    (value * 10.0).round() as i64
}

/// Writes a coordinate given in tenths: "12", "12.5", "-3.1"; never "-0".
fn num(out: &mut String, tenths: i64) {
    if tenths < 0 {
        out.push('-');
    }
    let magnitude = tenths.unsigned_abs();
    let (whole, tenth) = (magnitude / 10, magnitude % 10);
    let _ = write!(out, "{whole}");
    if tenth > 0 {
        let _ = write!(out, ".{tenth}");
    }
}

/// Writes "x y" (tenths).
fn pair(out: &mut String, (x, y): Px) {
    num(out, x);
    out.push(' ');
    num(out, y);
}

/// A pixel value (not in tenths) for an attribute, to one decimal.
fn px(value: f64) -> String {
    let mut out = String::new();
    num(&mut out, tenths(value));
    out
}

/// The plot area on the canvas, in pixels, and the ranges its edges stand for.
struct Plot {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
    x: Range,
    y: Range,
}

impl Plot {
    fn x_px(&self, at: f64) -> f64 {
        self.left + self.x.fraction(at) * (self.right - self.left)
    }

    fn y_px(&self, at: f64) -> f64 {
        self.bottom - self.y.fraction(at) * (self.bottom - self.top)
    }

    /// Where the point (x, y) is drawn, in tenths; `None` if an axis cannot show it.
    fn place(&self, x: f64, y: f64) -> Option<Px> {
        let x = position(self.x.scale, x)?;
        let y = position(self.y.scale, y)?;
        Some((tenths(self.x_px(x)), tenths(self.y_px(y))))
    }
}

/// The smallest and largest of some positions.
#[derive(Default, Clone, Copy)]
struct Bounds(Option<(f64, f64)>);

impl Bounds {
    fn add(&mut self, at: f64) {
        self.0 = Some(match self.0 {
            Some((lo, hi)) => (lo.min(at), hi.max(at)),
            None => (at, at),
        });
    }

    fn union(self, other: Bounds) -> Bounds {
        let mut out = self;
        if let Some((lo, hi)) = other.0 {
            out.add(lo);
            out.add(hi);
        }
        out
    }
}

/// The right edge of a bar starting at `left`: `width` further on a linear axis, `width`
/// times further on a log one.
fn bar_right(scale: Scale, left: f64, width: f64) -> f64 {
    match scale {
        Scale::Linear => left + width,
        Scale::Log => left * width,
    }
}

/// The ranges the data spans, padded; `None` when nothing can be drawn.
fn ranges(chart: &Chart) -> Option<(Range, Range)> {
    let (xs, ys) = (chart.x.scale, chart.y.scale);
    let (mut bx, mut by) = (Bounds::default(), Bounds::default());
    for series in &chart.series {
        for &(x, y) in &series.points {
            match series.kind {
                Kind::Bars { width } => {
                    let right = bar_right(xs, x, width);
                    if let (Some(l), Some(r), Some(h)) =
                        (position(xs, x), position(xs, right), position(ys, y))
                    {
                        bx.add(l);
                        bx.add(r);
                        by.add(h);
                        if ys == Scale::Linear {
                            by.add(0.0);
                        }
                    }
                }
                _ => {
                    if let (Some(x), Some(y)) = (position(xs, x), position(ys, y)) {
                        bx.add(x);
                        by.add(y);
                    }
                }
            }
        }
    }
    if let Some(last) = chart.categories.len().checked_sub(1) {
        if let (Some(first), Some(last)) = (position(xs, 0.0), position(xs, last as f64)) {
            bx.add(first);
            bx.add(last);
        }
    }
    if chart.diagonal && xs == ys {
        // y = x over the range both share: the same span on both axes.
        let both = bx.union(by);
        (bx, by) = (both, both);
    }
    let ((xlo, xhi), (ylo, yhi)) = (bx.0?, by.0?);
    Some((Range::around(xs, xlo, xhi), Range::around(ys, ylo, yhi)))
}

/// What a legend entry shows beside its name.
#[derive(Clone, Copy)]
enum Key {
    Series(usize),
    Diagonal,
}

struct Entry {
    key: Key,
    name: String,
    width: f64,
}

/// Legend entries laid out in rows under the plot: (entry, x, row).
fn legend_rows(chart: &Chart, canvas_width: f64) -> (Vec<(Entry, f64, usize)>, usize) {
    let mut entries: Vec<Entry> = chart
        .series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.name.is_empty())
        .map(|(i, s)| Entry {
            key: Key::Series(i),
            name: s.name.clone(),
            width: 0.0,
        })
        .collect();
    if chart.diagonal {
        entries.push(Entry {
            key: Key::Diagonal,
            name: "y = x".to_string(),
            width: 0.0,
        });
    }
    let mut placed = Vec::new();
    let (mut x, mut row) = (12.0, 0);
    for mut entry in entries {
        entry.width = 24.0 + text_width(&entry.name, FONT) + 16.0;
        if x > 12.0 && x + entry.width > canvas_width - 12.0 {
            x = 12.0;
            row += 1;
        }
        let at = x;
        x += entry.width;
        placed.push((entry, at, row));
    }
    let rows = if placed.is_empty() { 0 } else { row + 1 };
    (placed, rows)
}

/// Named ticks, written upwards: every `stride`-th name, so that neighbours do not overlap.
fn category_ticks(plot: &Plot, names: &[String]) -> Vec<(Tick, String)> {
    let spacing = (plot.x_px(1.0) - plot.x_px(0.0)).abs();
    let stride = if spacing > 0.0 {
        ((FONT + 3.0) / spacing).ceil().max(1.0) as usize
    } else {
        names.len().max(1)
    };
    names
        .iter()
        .enumerate()
        .step_by(stride)
        .map(|(i, name)| {
            let at = i as f64;
            let tick = Tick {
                at,
                value: at,
                step: 1.0,
            };
            (tick, name.clone())
        })
        .collect()
}

/// Labelled ticks that fit: fewer when neighbouring labels would overlap.
fn x_ticks(plot: &Plot, labels: super::Labels) -> Vec<(Tick, String)> {
    let mut most = ((plot.right - plot.left) / 64.0).max(2.0) as usize;
    loop {
        let ticks: Vec<(Tick, String)> = plot
            .x
            .ticks(most)
            .into_iter()
            .map(|t| (t, axis::label(labels, &t)))
            .collect();
        let fits = ticks.windows(2).all(|w| {
            let gap = plot.x_px(w[1].0.at) - plot.x_px(w[0].0.at);
            gap >= (text_width(&w[0].1, FONT) + text_width(&w[1].1, FONT)) / 2.0 + 8.0
        });
        if fits || most <= 2 {
            return ticks;
        }
        most -= 1;
    }
}

/// Room above the plot, for the title.
const TOP: f64 = 34.0;

/// The chart as one SVG document.
pub(super) fn draw(chart: &Chart) -> String {
    // Bounded both ways: too small leaves no plot, too large would ask for millions of
    // ticks.
    let width = f64::from(chart.width.clamp(200, 10_000));
    let data = ranges(chart);
    let (legend, rows) = match data {
        Some(_) => legend_rows(chart, width),
        None => (Vec::new(), 0),
    };
    let (height, bottom, tick_room) = heights(chart, rows);

    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"{FONT}\" \
         role=\"img\" aria-label=\"{title}\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\
         <text x=\"{cx}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" \
         font-weight=\"bold\">{title}</text>",
        w = px(width),
        h = px(height),
        cx = px(width / 2.0),
        title = escape(&chart.title),
    );

    let Some((x, y)) = data else {
        let (left, right) = (48.0, width - 20.0);
        frame(&mut out, left, TOP, right, bottom);
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\" \
             font-size=\"14\">no data</text></svg>",
            px((left + right) / 2.0),
            px((TOP + bottom) / 2.0 + 5.0)
        );
        return out;
    };

    let y_ticks: Vec<(Tick, String)> = y
        .ticks(((bottom - TOP) / 28.0) as usize)
        .into_iter()
        .map(|t| (t, axis::label(chart.y.labels, &t)))
        .collect();
    let widest = y_ticks
        .iter()
        .map(|(_, l)| text_width(l, FONT))
        .fold(0.0, f64::max);
    let plot = Plot {
        left: (30.0 + widest + 8.0).min(width / 2.0),
        top: TOP,
        right: width - 20.0,
        bottom,
        x,
        y,
    };
    let named = !chart.categories.is_empty();
    let x_ticks = if named {
        category_ticks(&plot, &chart.categories)
    } else {
        x_ticks(&plot, chart.x.labels)
    };

    grid(&mut out, &plot, &x_ticks, &y_ticks, named);
    axis_labels(&mut out, &plot, &chart.x, &chart.y, tick_room);
    for (i, band) in chart.bands.iter().enumerate() {
        draw_band(&mut out, &plot, band, i);
    }
    draw_layers(&mut out, chart, &plot);
    frame(&mut out, plot.left, plot.top, plot.right, plot.bottom);
    for (entry, at, row) in &legend {
        let cy = bottom + 36.0 + tick_room + 10.0 + 8.0 + 16.0 * *row as f64;
        legend_entry(&mut out, chart, entry, *at, cy);
    }
    out.push_str("</svg>");
    out
}

/// The chart's height, where the plot ends, and the room its category names take under
/// the plot (names are written upwards: they take their length there, where numbers take a
/// line). A long legend makes the chart taller rather than squeezing the plot away.
fn heights(chart: &Chart, legend_rows: usize) -> (f64, f64, f64) {
    let names = chart
        .categories
        .iter()
        .map(|c| text_width(c, FONT))
        .fold(0.0, f64::max);
    let tick_room = if chart.categories.is_empty() {
        0.0
    } else {
        (names + 10.0 - 16.0).max(0.0)
    };
    let below = below_plot(tick_room, legend_rows);
    let height = f64::from(chart.height.clamp(150, 10_000)).max(TOP + 120.0 + below);
    (height, height - below, tick_room)
}

/// The room under the plot: tick labels, the axis label, then the legend's rows.
fn below_plot(tick_room: f64, legend_rows: usize) -> f64 {
    let legend = if legend_rows > 0 {
        10.0 + 16.0 * legend_rows as f64
    } else {
        0.0
    };
    36.0 + tick_room + legend + 8.0
}

/// Every series, layered: bars underneath, then the diagonal, lines, dots, and the marks
/// on top of the dots.
fn draw_layers(out: &mut String, chart: &Chart, plot: &Plot) {
    let layer = |s: &Series| match s.kind {
        Kind::Bars { .. } => 0,
        Kind::Intervals => 1,
        Kind::Line | Kind::Steps => 2,
        Kind::Points(Mark::Dot) => 3,
        Kind::Points(Mark::Ring) => 4,
        Kind::Points(Mark::Cross) => 5,
    };
    let mut order: Vec<&Series> = chart.series.iter().collect();
    order.sort_by_key(|s| layer(s));
    let mut drew_diagonal = !chart.diagonal;
    for series in order {
        if !drew_diagonal && layer(series) > 0 {
            diagonal(out, plot);
            drew_diagonal = true;
        }
        draw_series(out, plot, series);
    }
    if !drew_diagonal {
        diagonal(out, plot);
    }
}

fn frame(out: &mut String, left: f64, top: f64, right: f64, bottom: f64) {
    let _ = write!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{INK}\"/>",
        px(left),
        px(top),
        px(right - left),
        px(bottom - top)
    );
}

/// Grid lines, tick marks and tick labels; x's written upwards when `upwards`.
fn grid(
    out: &mut String,
    plot: &Plot,
    x_ticks: &[(Tick, String)],
    y_ticks: &[(Tick, String)],
    upwards: bool,
) {
    let (left, right) = (tenths(plot.left), tenths(plot.right));
    let (top, bottom) = (tenths(plot.top), tenths(plot.bottom));
    let xs: Vec<i64> = x_ticks
        .iter()
        .map(|(t, _)| tenths(plot.x_px(t.at)))
        .collect();
    let ys: Vec<i64> = y_ticks
        .iter()
        .map(|(t, _)| tenths(plot.y_px(t.at)))
        .collect();
    let mut lines = String::new();
    let mut marks = String::new();
    for &x in &xs {
        lines.push('M');
        pair(&mut lines, (x, top));
        lines.push('V');
        num(&mut lines, bottom);
        marks.push('M');
        pair(&mut marks, (x, bottom));
        marks.push_str("v4");
    }
    for &y in &ys {
        lines.push('M');
        pair(&mut lines, (left, y));
        lines.push('H');
        num(&mut lines, right);
        marks.push('M');
        pair(&mut marks, (left, y));
        marks.push_str("h-4");
    }
    if !lines.is_empty() {
        let _ = write!(
            out,
            "<path d=\"{lines}\" stroke=\"{GRID}\" fill=\"none\"/>\
             <path d=\"{marks}\" stroke=\"{INK}\" fill=\"none\"/>"
        );
    }
    if upwards {
        // Each name ends under its tick and runs up-left from it, centred on the tick.
        out.push_str("<g text-anchor=\"end\">");
        for ((_, label), x) in x_ticks.iter().zip(&xs) {
            let _ = write!(out, "<text transform=\"translate(");
            num(out, *x + 40);
            let _ = write!(
                out,
                " {}) rotate(-90)\">{}</text>",
                px(plot.bottom + 7.0),
                escape(label)
            );
        }
    } else {
        out.push_str("<g text-anchor=\"middle\">");
        for ((_, label), x) in x_ticks.iter().zip(&xs) {
            let _ = write!(out, "<text x=\"");
            num(out, *x);
            let _ = write!(
                out,
                "\" y=\"{}\">{}</text>",
                px(plot.bottom + 16.0),
                escape(label)
            );
        }
    }
    out.push_str("</g><g text-anchor=\"end\">");
    for ((_, label), y) in y_ticks.iter().zip(&ys) {
        let _ = write!(out, "<text x=\"{}\" y=\"", px(plot.left - 7.0));
        // Nudged down by about a third of the font size: centred on the tick.
        num(out, y + 40);
        let _ = write!(out, "\">{}</text>", escape(label));
    }
    out.push_str("</g>");
}

fn axis_labels(out: &mut String, plot: &Plot, x: &Axis, y: &Axis, tick_room: f64) {
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\
         <text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\" \
         font-size=\"12\">{}</text>",
        px((plot.left + plot.right) / 2.0),
        px(plot.bottom + 33.0 + tick_room),
        escape(&x.label),
        px((plot.top + plot.bottom) / 2.0),
        escape(&y.label),
    );
}

fn diagonal(out: &mut String, plot: &Plot) {
    let lo = plot.x.lo.max(plot.y.lo);
    let hi = plot.x.hi.min(plot.y.hi);
    if plot.x.scale != plot.y.scale || lo >= hi {
        return;
    }
    let mut d = String::from("M");
    pair(&mut d, (tenths(plot.x_px(lo)), tenths(plot.y_px(lo))));
    d.push('L');
    pair(&mut d, (tenths(plot.x_px(hi)), tenths(plot.y_px(hi))));
    let _ = write!(
        out,
        "<path d=\"{d}\" stroke=\"{DIAGONAL}\" stroke-dasharray=\"5 4\" fill=\"none\"/>"
    );
}

/// A band: a light rectangle over the plot's height from `from` to `to`, its label at the
/// top (the `i`-th band's a line lower than the one before, over three lines, so that
/// neighbours' labels do not overlap).
fn draw_band(out: &mut String, plot: &Plot, band: &Band, i: usize) {
    let (Some(from), Some(to)) = (
        position(plot.x.scale, band.from),
        position(plot.x.scale, band.to),
    ) else {
        return;
    };
    let (a, b) = (plot.x_px(from), plot.x_px(to));
    let (left, right) = (
        a.min(b).max(plot.left),
        a.max(b).min(plot.right).max(plot.left),
    );
    let color = PALETTE[band.color % PALETTE.len()];
    let _ = write!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{color}\" \
         fill-opacity=\".14\" stroke=\"{color}\" stroke-opacity=\".5\" \
         stroke-dasharray=\"3 3\"><title>{label}</title></rect>\
         <text x=\"{}\" y=\"{}\" fill=\"{color}\">{label}</text>",
        px(left),
        px(plot.top),
        px(right - left),
        px(plot.bottom - plot.top),
        px(left + 3.0),
        px(plot.top + 13.0 + 13.0 * (i % 3) as f64),
        label = escape(&band.label),
    );
}

fn color(series: &Series) -> &'static str {
    PALETTE[series.color % PALETTE.len()]
}

fn draw_series(out: &mut String, plot: &Plot, series: &Series) {
    let placed = series.points.iter().map(|&(x, y)| plot.place(x, y));
    let color = color(series);
    match series.kind {
        Kind::Line | Kind::Steps => {
            let parts = if series.kind == Kind::Steps {
                thin::polyline(thin::staircase(placed))
            } else {
                thin::polyline(placed)
            };
            if parts.is_empty() {
                return;
            }
            let mut d = String::new();
            for part in &parts {
                d.push('M');
                for (i, p) in part.iter().enumerate() {
                    if i > 0 {
                        d.push(' ');
                    }
                    pair(&mut d, *p);
                }
                if part.len() == 1 {
                    d.push_str("h0");
                }
            }
            let _ = write!(
                out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.6\" \
                 stroke-linejoin=\"round\" stroke-linecap=\"round\"/>"
            );
        }
        Kind::Points(mark) => {
            let cell = if mark == Mark::Dot {
                DOT_CELL
            } else {
                MARK_CELL
            };
            let kept = thin::scatter(placed.flatten(), cell);
            if kept.is_empty() {
                return;
            }
            let d = marks(mark, &kept);
            let style = match mark {
                Mark::Dot => "stroke-width=\"3\" stroke-linecap=\"round\" opacity=\".7\"",
                Mark::Cross => "stroke-width=\"1.6\"",
                Mark::Ring => "stroke-width=\"1.4\"",
            };
            let _ = write!(
                out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" {style}/>"
            );
        }
        Kind::Bars { width } => bars(out, plot, series, width, color),
        Kind::Intervals => whiskers(out, plot, series, color),
    }
}

/// One whisker per (x, low), (x, high) pair: a vertical stroke with short caps.
fn whiskers(out: &mut String, plot: &Plot, series: &Series, color: &str) {
    let mut d = String::new();
    for pair_of in series.points.chunks_exact(2) {
        let (x, lo) = pair_of[0];
        let (_, hi) = pair_of[1];
        let (Some(a), Some(b)) = (plot.place(x, lo), plot.place(x, hi)) else {
            continue;
        };
        d.push('M');
        pair(&mut d, a);
        d.push('V');
        num(&mut d, b.1);
        for y in [a.1, b.1] {
            d.push('M');
            pair(&mut d, (a.0 - 30, y));
            d.push_str("h6");
        }
    }
    if !d.is_empty() {
        let _ = write!(
            out,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.2\"/>"
        );
    }
}

/// Path data for marks at `points`: dots as zero-length round-capped strokes (a relative
/// move and "h0" each), crosses as two strokes, rings as two arcs.
fn marks(mark: Mark, points: &[Px]) -> String {
    let mut d = String::with_capacity(points.len() * 12);
    let mut at: Option<Px> = None;
    for &(x, y) in points {
        match mark {
            Mark::Dot => {
                match at {
                    Some((ax, ay)) => {
                        d.push('m');
                        pair(&mut d, (x - ax, y - ay));
                    }
                    None => {
                        d.push('M');
                        pair(&mut d, (x, y));
                    }
                }
                d.push_str("h0");
                at = Some((x, y));
            }
            Mark::Cross => {
                d.push('M');
                pair(&mut d, (x - 30, y - 30));
                d.push_str("l6 6m0-6l-6 6");
            }
            Mark::Ring => {
                d.push('M');
                pair(&mut d, (x - 35, y));
                d.push_str("a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0-7 0");
            }
        }
    }
    d
}

/// Bars as one path of rectangles from the baseline (0 on a linear y axis, the plot's
/// bottom on a log one). More bars than pixel columns are drawn as their outline per
/// column, which looks the same.
fn bars(out: &mut String, plot: &Plot, series: &Series, width: f64, color: &str) {
    let base = match plot.y.scale {
        Scale::Linear => tenths(plot.y_px(0.0)),
        Scale::Log => tenths(plot.bottom),
    };
    let mut rects: Vec<(i64, i64, i64, i64)> = Vec::new();
    for &(left, h) in &series.points {
        let right = bar_right(plot.x.scale, left, width);
        let (Some(l), Some(r)) = (plot.place(left, h), plot.place(right, h)) else {
            continue;
        };
        let (x0, x1) = (l.0.min(r.0), l.0.max(r.0));
        let (y0, y1) = (l.1.min(base), l.1.max(base));
        rects.push((x0, x1, y0, y1));
    }
    if rects.len() as f64 > plot.right - plot.left {
        rects = outline(&rects);
    }
    if rects.is_empty() {
        return;
    }
    let mut d = String::new();
    for (x0, x1, y0, y1) in rects {
        d.push('M');
        pair(&mut d, (x0, y0));
        d.push('H');
        num(&mut d, x1);
        d.push('V');
        num(&mut d, y1);
        d.push('H');
        num(&mut d, x0);
        d.push('Z');
    }
    let _ = write!(
        out,
        "<path d=\"{d}\" fill=\"{color}\" fill-opacity=\".55\" stroke=\"none\"/>"
    );
}

/// Per pixel column, the span the rectangles cover there; equal neighbours merged.
fn outline(rects: &[(i64, i64, i64, i64)]) -> Vec<(i64, i64, i64, i64)> {
    let mut columns: std::collections::BTreeMap<i64, (i64, i64)> = Default::default();
    for &(x0, x1, y0, y1) in rects {
        for c in x0.div_euclid(10)..=(x1 - 1).max(x0).div_euclid(10) {
            let span = columns.entry(c).or_insert((y0, y1));
            *span = (span.0.min(y0), span.1.max(y1));
        }
    }
    let mut merged: Vec<(i64, i64, i64, i64)> = Vec::new();
    for (c, (y0, y1)) in columns {
        match merged.last_mut() {
            Some(last) if last.1 == c * 10 && (last.2, last.3) == (y0, y1) => last.1 += 10,
            _ => merged.push((c * 10, c * 10 + 10, y0, y1)),
        }
    }
    merged
}

fn legend_entry(out: &mut String, chart: &Chart, entry: &Entry, x: f64, cy: f64) {
    let (sx, sy) = (tenths(x), tenths(cy));
    match entry.key {
        Key::Diagonal => {
            let _ = write!(out, "<path d=\"M");
            pair(out, (sx, sy));
            let _ = write!(
                out,
                "h18\" stroke=\"{DIAGONAL}\" stroke-dasharray=\"5 4\" fill=\"none\"/>"
            );
        }
        Key::Series(i) => {
            let series = &chart.series[i];
            let color = color(series);
            match series.kind {
                Kind::Line | Kind::Steps => {
                    let _ = write!(out, "<path d=\"M");
                    pair(out, (sx, sy));
                    let _ = write!(out, "h18\" stroke=\"{color}\" stroke-width=\"2\"/>");
                }
                Kind::Intervals => {
                    let _ = write!(out, "<path d=\"M");
                    pair(out, (sx + 90, sy - 50));
                    let _ = write!(
                        out,
                        "v10m-3 0h6m-6-10h6\" stroke=\"{color}\" stroke-width=\"1.2\" \
                         fill=\"none\"/>"
                    );
                }
                Kind::Bars { .. } => {
                    let _ = write!(out, "<rect x=\"");
                    num(out, sx + 20);
                    out.push_str("\" y=\"");
                    num(out, sy - 50);
                    let _ = write!(
                        out,
                        "\" width=\"14\" height=\"10\" fill=\"{color}\" fill-opacity=\".55\"/>"
                    );
                }
                Kind::Points(mark) => {
                    let d = marks(mark, &[(sx + 90, sy)]);
                    let style = match mark {
                        Mark::Dot => "stroke-width=\"5\" stroke-linecap=\"round\"",
                        Mark::Cross => "stroke-width=\"1.6\"",
                        Mark::Ring => "stroke-width=\"1.4\"",
                    };
                    let _ = write!(
                        out,
                        "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" {style}/>"
                    );
                }
            }
        }
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\">{}</text>",
        px(x + 24.0),
        px(cy + 4.0),
        escape(&entry.name)
    );
}
