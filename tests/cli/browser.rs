//! A real run's HTML report, rendered to PNG by headless Chromium through
//! `scripts/browser.sh`, must show its plots: ink on a fair share of the page, and several of
//! the plot palette's colours over many pixels each. The same report with its `<svg>`
//! elements cut out must fail that check, so the check tells a report whose plots failed to
//! draw from one that drew them.
//!
//! Skips, saying so, when Chromium is not installed (`scripts/browser.sh install` installs it;
//! CI does, in `.ci/run`).

use std::path::Path;
use std::process::Command;

use sudoku_bench::render::plot::PALETTE;
use tempfile::TempDir;

use super::{bench, say_skipped};

/// Strategies in the rendered run: fast ones, three of them so that three plot colours must
/// show.
const STRATEGIES: &str = "fast,dlx,bitmask";

/// How many palette colours a report of `STRATEGIES` must show.
const COLOURS_WANTED: usize = 3;

/// Pixels of one colour that count as a plotted series, not a legend swatch or a stray
/// anti-aliased edge: a cactus line across a plot alone covers more.
const PIXELS_PER_COLOUR: usize = 300;

/// Share of the page's pixels that must not be white.
const INK_WANTED: f64 = 0.02;

/// The browser `scripts/browser.sh` runs, or why the test cannot run.
fn browser_missing() -> Option<String> {
    let found = Command::new("sh")
        .args(["-c", "command -v \"${CHROMIUM:-chromium}\""])
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false);
    (!found).then(|| {
        "chromium not found (scripts/browser.sh install installs it); \
         the report was not rendered"
            .to_string()
    })
}

/// A decoded screenshot, 8-bit RGB.
struct Picture {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Picture {
    fn load(path: &Path) -> Picture {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut decoder = png::Decoder::new(file);
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|px| match channels {
                1 | 2 => [px[0], px[0], px[0]],
                _ => [px[0], px[1], px[2]],
            })
            .collect();
        Picture {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    fn pixels(&self) -> impl Iterator<Item = [u8; 3]> + '_ {
        self.rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]])
    }

    /// Share of pixels that are not (nearly) white.
    fn ink(&self) -> f64 {
        let inked = self.pixels().filter(|p| p.iter().any(|&c| c < 235)).count();
        inked as f64 / (self.width * self.height) as f64
    }

    /// The palette colours (black left out: it is also the text's) covering at least
    /// `PIXELS_PER_COLOUR` pixels, within a small tolerance for anti-aliasing.
    fn palette_seen(&self) -> Vec<&'static str> {
        let palette: Vec<(&'static str, [u8; 3])> = PALETTE
            .iter()
            .map(|hex| (*hex, rgb_of(hex)))
            .filter(|(_, rgb)| *rgb != [0, 0, 0])
            .collect();
        let mut counts = vec![0usize; palette.len()];
        for pixel in self.pixels() {
            for (count, (_, colour)) in counts.iter_mut().zip(&palette) {
                if pixel.iter().zip(colour).all(|(a, b)| a.abs_diff(*b) <= 10) {
                    *count += 1;
                }
            }
        }
        palette
            .iter()
            .zip(counts)
            .filter(|(_, count)| *count >= PIXELS_PER_COLOUR)
            .map(|((hex, _), _)| *hex)
            .collect()
    }
}

/// `#RRGGBB` as bytes.
fn rgb_of(hex: &str) -> [u8; 3] {
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    [byte(1), byte(3), byte(5)]
}

/// `page` rendered 1200 CSS pixels wide, its whole height, by the script a user would run.
fn render(page: &Path, png: &Path) -> Picture {
    let out = Command::new("scripts/browser.sh")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("png")
        .arg(page)
        .arg(png)
        .arg("1200")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/browser.sh png {} failed:\n{}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Picture::load(png)
}

/// The page without its `<svg>` elements: a report whose plots did not draw.
fn without_plots(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<svg") {
        out.push_str(&rest[..start]);
        rest = match rest[start..].find("</svg>") {
            Some(end) => &rest[start + end + "</svg>".len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

#[test]
fn a_real_report_renders_with_its_plots() {
    if let Some(why) = browser_missing() {
        say_skipped(&why);
        return;
    }
    let dir = TempDir::new().unwrap();
    let report = dir.path().join("report.html");
    bench()
        .args(["run", "datasets/minimal.txt", "-s", STRATEGIES, "--quiet"])
        .arg("--out")
        .arg(dir.path().join("run.csv"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();

    let picture = render(&report, &dir.path().join("report.png"));
    assert!(
        picture.width == 1200 && picture.height >= 600,
        "{}x{}",
        picture.width,
        picture.height
    );
    let ink = picture.ink();
    assert!(
        ink >= INK_WANTED,
        "only {:.2}% of the page is not white",
        ink * 100.0
    );
    let seen = picture.palette_seen();
    assert!(
        seen.len() >= COLOURS_WANTED,
        "plot colours on the page: {seen:?}; want {COLOURS_WANTED} of {PALETTE:?}"
    );

    // The check itself: the same page with its plots cut out must fail it.
    let html = std::fs::read_to_string(&report).unwrap();
    let bare = dir.path().join("bare.html");
    std::fs::write(&bare, without_plots(&html)).unwrap();
    let picture = render(&bare, &dir.path().join("bare.png"));
    let seen = picture.palette_seen();
    assert!(
        seen.len() < COLOURS_WANTED,
        "the report without its plots still shows plot colours {seen:?}: the check cannot tell"
    );
}

#[test]
fn without_plots_cuts_every_svg_and_keeps_the_rest() {
    let page = "<p>a</p><svg x=\"1\"><text>t</text></svg><table></table><svg></svg>end";
    assert_eq!(without_plots(page), "<p>a</p><table></table>end");
    assert_eq!(without_plots("<svg>cut off"), "");
}

#[test]
fn the_script_takes_the_whole_page() {
    if let Some(why) = browser_missing() {
        say_skipped(&why);
        return;
    }
    // Taller than any default window, with its last rows in a colour of their own: cut at a
    // window's height, the picture would lose them.
    let page = "<!doctype html><body style=\"margin:0\">\
        <div style=\"height:2500px;background:#0072B2\"></div>\
        <div style=\"height:400px;background:#D55E00\"></div></body>";
    let dir = TempDir::new().unwrap();
    let html = dir.path().join("tall.html");
    std::fs::write(&html, page).unwrap();
    let picture = render(&html, &dir.path().join("tall.png"));
    assert_eq!((picture.width, picture.height), (1200, 2900));
    assert_eq!(picture.palette_seen(), ["#0072B2", "#D55E00"]);
}

/// `colour` laid over white at `opacity`, as a band's fill shows.
fn tint(colour: [u8; 3], opacity: f64) -> [u8; 3] {
    colour.map(|c| (255.0 - opacity * (255.0 - f64::from(c))).round() as u8)
}

/// `history report`'s page of real runs with a speed-up at commit 6: its series in the
/// points' colour and the change's band in its tint; cut out, neither shows.
#[test]
fn a_real_history_page_renders_with_its_series_and_band() {
    if let Some(why) = browser_missing() {
        say_skipped(&why);
        return;
    }
    let Some(s) = crate::history::Setup::new() else {
        return;
    };
    // Six a side: fewer could not make a p-value of 0.01 (C(8, 4) = 70 orders). Made-up
    // runs, not timed ones: this test is about the page, and a loaded machine once hid a
    // timed step of 40 to 20 ms.
    for i in 0..12 {
        s.commit(i, if i < 6 { 40 } else { 20 });
    }
    let page = s.path("history.html");
    bench()
        .args(["history", "report", "--db", &s.db(), "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    if html.matches("fill-opacity=\".14\"").count() != 1 {
        let check = bench()
            .args(["history", "check", "--db", &s.db()])
            .output()
            .unwrap();
        panic!(
            "not one band; history check says:\n{}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
    let count = |picture: &Picture, colour: [u8; 3]| {
        picture
            .pixels()
            .filter(|p| p.iter().zip(&colour).all(|(a, b)| a.abs_diff(*b) <= 6))
            .count()
    };
    let band = tint(rgb_of(PALETTE[2]), 0.14);
    let picture = render(&page, &s.path("history.png"));
    assert!(picture.ink() >= INK_WANTED, "{:.3}", picture.ink());
    assert!(
        picture.palette_seen().contains(&PALETTE[0]),
        "no series drawn"
    );
    assert!(count(&picture, band) >= PIXELS_PER_COLOUR, "no band drawn");
    let bare = s.path("bare.html");
    std::fs::write(&bare, without_plots(&html)).unwrap();
    let picture = render(&bare, &s.path("bare.png"));
    assert!(!picture.palette_seen().contains(&PALETTE[0]));
    assert!(count(&picture, band) < PIXELS_PER_COLOUR);
}
