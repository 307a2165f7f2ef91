//! The one output format every output option names: `run`'s and `merge`'s
//! `--summary-format`, `compare --format` and `history export --format`. Each option takes
//! the formats its output has ([`OutputFormat::parser`]), by the same words, so `markdown`
//! (or `md`) means the same everywhere; a format another output has is refused by clap
//! naming the option, the format given and the ones it takes.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    #[value(alias = "md")]
    Markdown,
    Json,
    Csv,
    /// One self-contained page with the verdicts and, per compared pair, plots of the
    /// per-puzzle time ratios.
    Html,
    /// Bencher Metric Format (JSON): throughput, latency, nodes, guesses, instructions,
    /// time-ratio, relative-time.
    Bmf,
}

impl OutputFormat {
    /// The summary's formats (`--summary-format`).
    pub const SUMMARY: &'static [OutputFormat] = &[
        OutputFormat::Json,
        OutputFormat::Markdown,
        OutputFormat::Csv,
    ];
    /// The comparison's formats (`compare --format`).
    pub const COMPARISON: &'static [OutputFormat] = &[
        OutputFormat::Table,
        OutputFormat::Markdown,
        OutputFormat::Json,
        OutputFormat::Html,
    ];
    /// The history's export formats (`history export --format`).
    pub const HISTORY_EXPORT: &'static [OutputFormat] = &[OutputFormat::Bmf];

    /// An option's parser that takes only `formats`, by their names and aliases, and lists
    /// only them (with their help) in the option's help and its error.
    pub fn parser(formats: &'static [OutputFormat]) -> impl TypedValueParser<Value = OutputFormat> {
        PossibleValuesParser::new(formats.iter().filter_map(ValueEnum::to_possible_value)).map(
            |name| OutputFormat::from_str(&name, false).expect("a possible value names a format"),
        )
    }
}
