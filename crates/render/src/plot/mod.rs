//! Charts as standalone SVG documents, for the HTML reports: line, step, point and bar
//! series on linear or log axes.
//!
//! Hand-written SVG rather than plotters: every label is an SVG `<text>` that the browser
//! sets in its own font, so nothing needs a font file at build time or in the repository,
//! and the few chart kinds a report needs are short to draw.
//!
//! Callers hand over every data point; the chart thins them where they would overlap on
//! screen (`svg`), so a two-million-row run makes a small file. Statistics are never
//! computed from what is drawn.
//!
//! `axis` places values and picks ticks, `thin` drops what would not show, `svg` lays
//! the chart out and writes it.

mod axis;
mod svg;
#[cfg(test)]
mod tests;
mod thin;

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Evenly spaced powers of ten; values at or below 0 are not drawn.
    Log,
}

/// How tick labels write the values they mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labels {
    /// Plain numbers, shortened: 0.25, 500, 1.5k, 2M, 1e-7.
    Number,
    /// Values in nanoseconds, in the largest unit they reach: 250 ns, 10 µs, 1.5 s.
    Duration,
    /// Fractions as percentages: 0.25 is 25%.
    Percent,
    /// Factors: 0.5 is 0.5×, 2 is 2×.
    Ratio,
}

/// One axis: its label, scale and how its ticks are labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// What the axis measures, with its unit.
    pub label: String,
    /// Linear or log.
    pub scale: Scale,
    /// How tick labels write values.
    pub labels: Labels,
}

impl Axis {
    /// A linear axis.
    pub fn linear(label: &str) -> Axis {
        Axis {
            label: label.to_string(),
            scale: Scale::Linear,
            labels: Labels::Number,
        }
    }

    /// A log axis.
    pub fn log(label: &str) -> Axis {
        Axis {
            label: label.to_string(),
            scale: Scale::Log,
            labels: Labels::Number,
        }
    }

    /// Values are nanoseconds: ticks read "10 µs", "1 ms".
    pub fn durations(self) -> Axis {
        self.labelled(Labels::Duration)
    }

    /// Values are fractions: ticks read "25%".
    pub fn percent(self) -> Axis {
        self.labelled(Labels::Percent)
    }

    /// Values are factors: ticks read "0.5×", "2×".
    pub fn ratio(self) -> Axis {
        self.labelled(Labels::Ratio)
    }

    fn labelled(mut self, labels: Labels) -> Axis {
        self.labels = labels;
        self
    }
}

/// How a point series marks its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A small filled dot, for the bulk of the points.
    Dot,
    /// A cross, drawn over the dots: points that need attention (a disagreement).
    Cross,
    /// A ring: points of another kind (an aborted search).
    Ring,
}

/// What a series draws.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Line,
    Steps,
    Points(Mark),
    /// Each point is (left edge, height); bars are `width` wide in data units of x.
    Bars {
        width: f64,
    },
    /// Points in pairs, (x, low) then (x, high): a vertical whisker each.
    Intervals,
}

/// A shaded stretch of x, labelled: where something happened between two points.
#[derive(Debug, Clone, PartialEq)]
struct Band {
    from: f64,
    to: f64,
    color: usize,
    label: String,
}

#[derive(Debug, Clone, PartialEq)]
struct Series {
    name: String,
    color: usize,
    kind: Kind,
    points: Vec<(f64, f64)>,
}

/// A chart being built; `svg` draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    title: String,
    x: Axis,
    y: Axis,
    series: Vec<Series>,
    diagonal: bool,
    width: u32,
    height: u32,
    /// Names of the x positions 0, 1, 2, ...; when given, the x ticks are these names.
    categories: Vec<String>,
    bands: Vec<Band>,
}

/// Colours told apart also by most colour-blind readers (Okabe and Ito), in the order
/// series ask for them by index.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

impl Chart {
    /// An empty chart of the default size.
    pub fn new(title: &str, x: Axis, y: Axis) -> Chart {
        Chart {
            title: title.to_string(),
            x,
            y,
            series: Vec::new(),
            diagonal: false,
            width: 560,
            height: 380,
            categories: Vec::new(),
            bands: Vec::new(),
        }
    }

    /// Name the x positions 0, 1, 2, ...: the ticks are these names (written upwards, and
    /// every other one or sparser when they would overlap), and the axis spans them all
    /// (for commits in order, whichever have points).
    pub fn categories(mut self, names: Vec<String>) -> Chart {
        self.categories = names;
        self
    }

    /// A vertical whisker from low to high at each x: (x, low, high).
    pub fn intervals(&mut self, name: &str, color: usize, intervals: &[(f64, f64, f64)]) {
        let points = intervals
            .iter()
            .flat_map(|&(x, lo, hi)| [(x, lo), (x, hi)])
            .collect();
        self.push(name, color, Kind::Intervals, points);
    }

    /// Shade x from `from` to `to` in `color` (a `PALETTE` index), under the series, with
    /// `label` at its top.
    pub fn band(&mut self, from: f64, to: f64, color: usize, label: &str) {
        self.bands.push(Band {
            from,
            to,
            color,
            label: label.to_string(),
        });
    }

    /// Another size, in CSS pixels.
    pub fn size(mut self, width: u32, height: u32) -> Chart {
        self.width = width;
        self.height = height;
        self
    }

    /// Points joined in the order given. `color` indexes `PALETTE` (wrapping), so a
    /// strategy keeps its colour from chart to chart. Thinning merges consecutive points
    /// in one pixel column, so give them sorted by x (as a cactus plot's are). A point
    /// the axes cannot show (NaN, log of <= 0) breaks the line. An empty `name` leaves
    /// the series out of the legend.
    pub fn line(&mut self, name: &str, color: usize, points: Vec<(f64, f64)>) {
        self.push(name, color, Kind::Line, points);
    }

    /// A staircase through the points (each step level until the next point's x): an
    /// ECDF.
    pub fn steps(&mut self, name: &str, color: usize, points: Vec<(f64, f64)>) {
        self.push(name, color, Kind::Steps, points);
    }

    /// Unjoined points. Crosses and rings are drawn over dots, and each series is thinned
    /// on its own, so marked points stay visible in a cloud of dots.
    pub fn points(&mut self, name: &str, color: usize, mark: Mark, points: Vec<(f64, f64)>) {
        self.push(name, color, Kind::Points(mark), points);
    }

    /// Bars from (left edge x, height) pairs, each `width` wide in x's data units (on a
    /// log x axis: the ratio from left edge to right edge).
    pub fn bars(&mut self, name: &str, color: usize, width: f64, bars: Vec<(f64, f64)>) {
        self.push(name, color, Kind::Bars { width }, bars);
    }

    /// Also draw y = x across the plot (for a scatter of two times).
    pub fn diagonal(&mut self) {
        self.diagonal = true;
    }

    fn push(&mut self, name: &str, color: usize, kind: Kind, points: Vec<(f64, f64)>) {
        self.series.push(Series {
            name: name.to_string(),
            color,
            kind,
            points,
        });
    }

    /// The chart as one `<svg>` element, to be placed inline in a page: frame, title,
    /// ticks, axis labels, the series thinned to what shows on screen, and a legend of
    /// the named series under the plot. A chart with nothing drawable says "no data".
    /// The same chart always gives the same bytes.
    pub fn svg(&self) -> String {
        svg::draw(self)
    }
}
