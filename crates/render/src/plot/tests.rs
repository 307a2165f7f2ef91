//! Whole charts: size bounds under thinning, what must survive it, degenerate input,
//! escaping and determinism. Axis and thinning details are tested in their own files.

use super::*;

/// A reproducible stream of numbers in 0..1 (no rng crate needed for a test).
fn noise(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The `d` attribute of every path stroked (or filled) in `color`.
fn paths_in<'a>(svg: &'a str, color: &str) -> Vec<&'a str> {
    svg.split("<path d=\"")
        .skip(1)
        .filter(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            tag.contains(&format!("\"{color}\""))
        })
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect()
}

/// The coordinates of a path made of absolute moves and implicit line-tos.
fn vertices(d: &str) -> Vec<(f64, f64)> {
    let numbers: Vec<f64> = d
        .split(['M', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    numbers.chunks(2).map(|c| (c[0], c[1])).collect()
}

/// Every number in every `d` attribute and x/y/width/height attribute has at most one
/// decimal.
fn assert_one_decimal(svg: &str) {
    for attr in [" d=\"", " x=\"", " y=\"", " width=\"", " height=\""] {
        for rest in svg.split(attr).skip(1) {
            let value = &rest[..rest.find('"').unwrap()];
            for part in value.split('.').skip(1) {
                let digits = part.chars().take_while(|c| c.is_ascii_digit()).count();
                assert!(digits <= 1, "{attr}{value}");
            }
        }
    }
}

fn cactus(points: usize) -> Vec<(f64, f64)> {
    let mut next = noise(7);
    let mut times: Vec<f64> = (0..points).map(|_| 1e3 * 1e5f64.powf(next())).collect();
    times.sort_by(f64::total_cmp);
    times
        .into_iter()
        .enumerate()
        .map(|(i, t)| ((i + 1) as f64, t))
        .collect()
}

#[test]
fn a_million_point_line_draws_in_a_few_kilobytes_with_its_extremes() {
    // Noisy, with one spike each way in the middle: the thinned line must keep both.
    let mut next = noise(3);
    let mut points: Vec<(f64, f64)> = (0..1_000_000)
        .map(|i| (i as f64, 1e4 + 1e3 * next()))
        .collect();
    points[400_000].1 = 1e6;
    points[600_000].1 = 50.0;
    let chart = |points: Vec<(f64, f64)>| {
        let mut chart = Chart::new("line", Axis::linear("puzzle"), Axis::log("time"));
        chart.line("s", 0, points);
        chart.svg()
    };
    let svg = chart(points.clone());
    // At most 4 vertices per pixel column of a 560 px chart, ~12 bytes each: ~27 KB.
    assert!(svg.len() < 40_000, "{}", svg.len());
    assert_one_decimal(&svg);
    // The same chart from only the first, extreme and last points spans the same ranges,
    // so its vertices are where the full line's extremes must be.
    let ends = vec![points[0], points[400_000], points[600_000], points[999_999]];
    let full = vertices(paths_in(&svg, PALETTE[0])[0]);
    for vertex in vertices(paths_in(&chart(ends), PALETTE[0])[0]) {
        assert!(full.contains(&vertex), "{vertex:?} not in the thinned line");
    }
}

#[test]
fn cactus_and_ecdf_of_two_million_puzzles_stay_small() {
    let points = cactus(2_000_000);
    let mut chart = Chart::new(
        "cactus",
        Axis::linear("puzzles finished"),
        Axis::log("time per puzzle").durations(),
    );
    chart.line("a", 0, points.clone());
    let ecdf: Vec<(f64, f64)> = points.iter().map(|&(i, t)| (t, i / 2e6)).collect();
    let mut steps = Chart::new(
        "ecdf",
        Axis::log("time").durations(),
        Axis::linear("").percent(),
    );
    steps.steps("a", 1, ecdf);
    for svg in [chart.svg(), steps.svg()] {
        assert!(svg.len() < 40_000, "{}", svg.len());
        assert_one_decimal(&svg);
    }
}

#[test]
fn a_million_point_scatter_keeps_one_dot_per_cell_and_every_cross() {
    let mut next = noise(11);
    let dots: Vec<(f64, f64)> = (0..1_000_000)
        .map(|_| (1e3 * 1e6f64.powf(next()), 1e3 * 1e6f64.powf(next())))
        .collect();
    // Disagreements in the thick of the dots.
    let crosses = vec![(1e5, 1e5), (1e6, 1e7), (3e7, 2e4)];
    let mut chart = Chart::new("a vs b", Axis::log("a").durations(), Axis::log("b"));
    chart.points("agree", 0, Mark::Dot, dots);
    chart.points("disagree", 1, Mark::Cross, crosses);
    chart.points("aborted", 2, Mark::Ring, vec![(1e9, 1e3)]);
    chart.diagonal();
    let svg = chart.svg();
    // A dot per 3 px square of a 560 x 380 canvas at most, each "m-12.3 4.5h0" (< 14
    // bytes): ~330 KB at worst; uniform noise fills most of the plot.
    let dots = paths_in(&svg, PALETTE[0])[0].matches("h0").count();
    assert!(dots <= 560 * 380 / 9, "{dots}");
    assert!(dots > 1000, "{dots}");
    assert!(svg.len() < dots * 14 + 20_000, "{}", svg.len());
    let crosses = paths_in(&svg, PALETTE[1]);
    // The chart's path and the legend's.
    assert_eq!(crosses.len(), 2);
    assert_eq!(crosses[0].matches("l6 6").count(), 3, "{}", crosses[0]);
    // Marks come after (over) the dots.
    assert!(svg.find(crosses[0]).unwrap() > svg.find("h0").unwrap());
    assert!(svg.contains("stroke-dasharray"), "the diagonal");
    assert_one_decimal(&svg);
}

#[test]
fn nothing_drawable_says_no_data_and_degenerate_data_still_draws() {
    let mut empty = Chart::new("empty", Axis::linear("x"), Axis::linear("y"));
    assert!(empty.svg().contains(">no data<"));
    empty.line("nothing", 0, Vec::new());
    empty.diagonal();
    assert!(empty.svg().contains(">no data<"));
    let mut undrawable = Chart::new("log", Axis::log("x"), Axis::log("y"));
    undrawable.points(
        "bad",
        0,
        Mark::Dot,
        vec![
            (0.0, 1.0),
            (-1.0, 5.0),
            (f64::NAN, 1.0),
            (1.0, f64::INFINITY),
        ],
    );
    undrawable.bars("bad", 1, 2.0, vec![(1.0, 0.0), (-3.0, 4.0)]);
    assert!(undrawable.svg().contains(">no data<"));

    let cases: Vec<Vec<(f64, f64)>> = vec![
        vec![(5.0, 5.0)],
        vec![(3.0, 7.0); 100],
        vec![(1.0, 1.0), (1e12, 1e12)],
        vec![(f64::MIN_POSITIVE, 1e-300), (f64::MAX, 1e300)],
        vec![(0.0, 0.0), (f64::NAN, 2.0), (1.0, 1.0)],
    ];
    for points in cases {
        for (xs, ys) in [
            (Axis::log("x"), Axis::log("y")),
            (Axis::linear("x"), Axis::linear("y")),
            (Axis::linear("x").percent(), Axis::log("y").durations()),
        ] {
            let mut chart = Chart::new("c", xs, ys).size(0, 0);
            chart.line("l", 0, points.clone());
            chart.steps("s", 1, points.clone());
            chart.points("p", 2, Mark::Ring, points.clone());
            chart.bars("b", 3, 1.5, points.clone());
            chart.diagonal();
            let svg = chart.svg();
            assert!(!svg.contains(">no data<"), "{points:?}");
            for bad in ["NaN", "inf"] {
                assert!(!svg.contains(bad), "{bad} in {svg}");
            }
            assert_one_decimal(&svg);
            assert!(svg.ends_with("</svg>"));
        }
    }
}

#[test]
fn an_enormous_size_is_bounded() {
    let mut chart =
        Chart::new("big", Axis::linear("x"), Axis::linear("y")).size(u32::MAX, u32::MAX);
    chart.line("l", 0, vec![(0.0, 0.0), (1.0, 1.0)]);
    let svg = chart.svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10000\""));
    assert!(svg.len() < 100_000, "{}", svg.len());
}

#[test]
fn ticks_on_a_time_axis_are_labelled_in_units() {
    let mut chart = Chart::new("t", Axis::log("time").durations(), Axis::linear("n"));
    chart.line("a", 0, vec![(3e3, 1.0), (4e7, 2.0)]);
    let svg = chart.svg();
    for label in [">10 µs<", ">100 µs<", ">1 ms<", ">10 ms<", ">time<", ">n<"] {
        assert!(svg.contains(label), "{label} in {svg}");
    }
}

#[test]
fn text_is_escaped_and_only_named_series_are_in_the_legend() {
    let mut chart = Chart::new("<script>&", Axis::linear("x & y"), Axis::linear("\"q\""));
    chart.line("a<b", 0, vec![(1.0, 1.0), (2.0, 3.0)]);
    chart.line("", 1, vec![(1.0, 2.0), (2.0, 2.0)]);
    let svg = chart.svg();
    assert!(!svg.contains("<script"));
    assert!(svg.contains(">&lt;script&gt;&amp;</text>"));
    assert!(svg.contains("aria-label=\"&lt;script&gt;&amp;\""));
    assert!(svg.contains(">x &amp; y<"));
    assert!(svg.contains(">&quot;q&quot;<"));
    assert!(svg.contains(">a&lt;b</text>"));
    // Two series drawn, one in the legend: the unnamed one has no legend stroke.
    assert_eq!(paths_in(&svg, PALETTE[0]).len(), 2);
    assert_eq!(paths_in(&svg, PALETTE[1]).len(), 1);
}

#[test]
fn a_long_legend_makes_the_chart_taller_not_the_plot_vanish() {
    let mut chart = Chart::new("many", Axis::linear("x"), Axis::linear("y")).size(300, 200);
    for i in 0..30 {
        chart.line(
            &format!("strategy-number-{i}"),
            i,
            vec![(0.0, 0.0), (1.0, 1.0)],
        );
    }
    let svg = chart.svg();
    let height: f64 = svg
        .split("height=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(height > 200.0 + 16.0 * 25.0, "{height}");
    assert!(svg.contains(">strategy-number-29<"));
}

#[test]
fn more_bars_than_pixels_draw_as_an_outline() {
    let bars: Vec<(f64, f64)> = (0..100_000)
        .map(|i| (i as f64, ((i / 500) % 50) as f64))
        .collect();
    let mut chart = Chart::new("hist", Axis::linear("x"), Axis::linear("count"));
    chart.bars("h", 0, 1.0, bars);
    let svg = chart.svg();
    let rects = paths_in(&svg, PALETTE[0])[0].matches('Z').count();
    assert!((100..=560).contains(&rects), "{rects}");
    // A few bars are drawn one by one.
    let mut chart = Chart::new("hist", Axis::log("time").durations(), Axis::linear("n"));
    chart.bars("h", 0, 10.0, vec![(1e3, 4.0), (1e4, 9.0), (1e5, 2.0)]);
    let svg = chart.svg();
    assert_eq!(paths_in(&svg, PALETTE[0])[0].matches('Z').count(), 3);
}

#[test]
fn the_same_chart_gives_the_same_bytes() {
    let build = || {
        let mut next = noise(5);
        let mut chart = Chart::new("same", Axis::log("a"), Axis::log("b"));
        let points: Vec<(f64, f64)> = (0..50_000)
            .map(|_| (1e3 * 1e4f64.powf(next()), 1e3 * 1e4f64.powf(next())))
            .collect();
        chart.points("p", 0, Mark::Dot, points.clone());
        chart.line("c", 1, points);
        chart.svg()
    };
    assert_eq!(build(), build());
}

/// With PLOT_DEMO set, writes a page of sample charts to the temporary directory, to look
/// at in a browser (or a headless one's screenshot).
#[test]
fn demo_page_when_asked() {
    let Some(_) = std::env::var_os("PLOT_DEMO") else {
        return;
    };
    let points = cactus(200_000);
    let mut cactus_chart = Chart::new(
        "Cactus: classic.txt",
        Axis::linear("puzzles finished"),
        Axis::log("time per puzzle").durations(),
    );
    cactus_chart.line("dlx", 0, points.clone());
    let slower: Vec<(f64, f64)> = points.iter().map(|&(i, t)| (i * 0.9, t * 3.0)).collect();
    cactus_chart.line("backtrack", 1, slower);
    let mut ecdf = Chart::new(
        "Per-puzzle time",
        Axis::log("time per puzzle").durations(),
        Axis::linear("puzzles").percent(),
    );
    ecdf.steps(
        "dlx",
        0,
        points.iter().map(|&(i, t)| (t, i / 2e5)).collect(),
    );
    ecdf.steps(
        "backtrack",
        1,
        points.iter().map(|&(i, t)| (t * 3.0, i / 2e5)).collect(),
    );
    let mut next = noise(9);
    let mut scatter = Chart::new(
        "dlx against backtrack",
        Axis::log("dlx").durations(),
        Axis::log("backtrack").durations(),
    );
    let pairs: Vec<(f64, f64)> = points
        .iter()
        .map(|&(_, t)| (t, t * 10f64.powf(next() * 1.5 - 0.3)))
        .collect();
    scatter.points("puzzle", 0, Mark::Dot, pairs.clone());
    scatter.points("disagree", 1, Mark::Cross, pairs[..5].to_vec());
    scatter.points("aborted", 2, Mark::Ring, pairs[100..103].to_vec());
    scatter.diagonal();
    let mut hist = Chart::new(
        "Time ratio",
        Axis::log("backtrack / dlx").ratio(),
        Axis::linear("puzzles"),
    );
    hist.bars(
        "ratio",
        4,
        1.25,
        (0..30)
            .map(|i| {
                (
                    0.5 * 1.25f64.powi(i),
                    (100.0 * (-(f64::from(i) - 12.0).powi(2) / 30.0).exp()),
                )
            })
            .collect(),
    );
    let empty = Chart::new("Nothing", Axis::linear("x"), Axis::linear("y"));
    let mut one = Chart::new("One point", Axis::log("x"), Axis::linear("y"));
    one.points("only", 3, Mark::Dot, vec![(42.0, 7.0)]);
    let mut wide = Chart::new(
        "1 ns to 1e12 ns",
        Axis::log("time").durations(),
        Axis::log("time").durations(),
    );
    wide.line("wide", 5, vec![(1.0, 1.0), (1e6, 3e3), (1e12, 1e12)]);
    let mut narrow = Chart::new("Narrow", Axis::log("x"), Axis::log("y"));
    narrow.line("narrow", 6, vec![(300.0, 3.1), (400.0, 3.3)]);
    let mut page = crate::export::html::Page::new("plot demo");
    let svgs = [
        cactus_chart.svg(),
        ecdf.svg(),
        scatter.svg(),
        hist.svg(),
        empty.svg(),
        one.svg(),
        wide.svg(),
        narrow.svg(),
    ];
    page.plots(svgs.iter().map(String::as_str));
    let path = std::env::temp_dir().join("plot-demo.html");
    std::fs::write(&path, page.finish()).unwrap();
    eprintln!("wrote {}", path.display());
}

#[test]
fn named_x_positions_whiskers_and_a_labelled_band() {
    let names: Vec<String> = (0..100).map(|i| format!("c{i:06x}")).collect();
    let mut chart = Chart::new("rate", Axis::linear("commit"), Axis::linear("rate"))
        .size(900, 380)
        .categories(names.clone());
    chart.points("median", 0, Mark::Dot, vec![(10.0, 5.0), (60.0, 4.0)]);
    chart.intervals("95%", 1, &[(10.0, 4.5, 5.5), (60.0, 3.8, 4.2)]);
    chart.band(40.0, 41.0, 1, "-20% c000028..c000029");
    let svg = chart.svg();
    assert_one_decimal(&svg);
    // Names run upwards; 100 of them in under 900 px: every other one.
    assert!(svg.contains("rotate(-90)\">c000000</text>"), "{svg}");
    assert!(svg.contains(">c000002</text>") && !svg.contains(">c000001</text>"));
    // The axis spans every name, not only those with points.
    let x_of = |name: &str| -> f64 {
        let at = svg.find(&format!(">{name}</text>")).unwrap();
        let head = &svg[..at];
        let t = head.rfind("translate(").unwrap();
        head[t + 10..].split(' ').next().unwrap().parse().unwrap()
    };
    assert!(x_of("c000000") < x_of("c000062"));
    // Two whiskers, each a stroke and two caps, in their colour.
    let whiskers = paths_in(&svg, PALETTE[1]);
    assert_eq!(whiskers.len(), 2, "{whiskers:?}");
    assert_eq!(whiskers[0].matches('M').count(), 6, "{}", whiskers[0]);
    // The band lies between the 40th and the 41st name, with its label.
    assert!(svg.contains(">-20% c000028..c000029</text>"));
    let rect = &svg[..svg.find("fill-opacity=\".14\"").unwrap()];
    let rect = &rect[rect.rfind("<rect").unwrap()..];
    let attr = |name: &str| -> f64 {
        let at = rect.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        rect[at..].split('"').next().unwrap().parse().unwrap()
    };
    let left = attr("x");
    let right = left + attr("width");
    let tick = |name: &str| x_of(name) - 4.0;
    assert!(
        (left - tick("c000028")).abs() < 0.2,
        "{left} {}",
        tick("c000028")
    );
    assert!(right > left && right < tick("c00002a"), "{right}");
    assert_eq!(svg, chart.svg(), "deterministic");
}
