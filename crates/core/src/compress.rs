//! Compressed streams: gzip, zstd, xz and bzip2, told apart by their magic numbers when
//! read and by their extensions when written. The one place that knows the formats, for
//! the corpus loader and the commands that write corpora.
//!
//! Every decoder reads concatenated members (what `cat a.gz b.gz` or a parallel
//! compressor makes) as one stream, as the formats' own command-line tools do.

use std::io::{self, BufRead, Read, Write};
use std::path::Path;

/// A compression format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// RFC 1952, `.gz`.
    Gzip,
    /// Zstandard, `.zst`.
    Zstd,
    /// xz (LZMA2), `.xz`.
    Xz,
    /// bzip2, `.bz2`.
    Bzip2,
}

/// Bytes of a stream's start that `Codec::detect` needs to tell every format apart.
pub(crate) const MAGIC_LEN: usize = 6;

impl Codec {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Codec; 4] = [Codec::Gzip, Codec::Zstd, Codec::Xz, Codec::Bzip2];

    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bzip2",
        }
    }

    /// The file extension that names the format, without its dot.
    pub fn extension(self) -> &'static str {
        match self {
            Codec::Gzip => "gz",
            Codec::Zstd => "zst",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bz2",
        }
    }

    fn magic(self) -> &'static [u8] {
        match self {
            Codec::Gzip => b"\x1f\x8b",
            Codec::Zstd => b"\x28\xb5\x2f\xfd",
            Codec::Xz => b"\xfd7zXZ\x00",
            Codec::Bzip2 => b"BZh",
        }
    }

    /// The format `head` (a stream's first bytes, at least `MAGIC_LEN` of them unless the
    /// stream is shorter) starts with, if any.
    pub fn detect(head: &[u8]) -> Option<Codec> {
        Codec::ALL.into_iter().find(|codec| {
            match head.strip_prefix(codec.magic()) {
                // bzip2's magic is followed by the block size, `1`-`9`: a text line
                // starting "BZh" is not a bzip2 file.
                Some(rest) if *codec == Codec::Bzip2 => matches!(rest.first(), Some(b'1'..=b'9')),
                Some(_) => true,
                None => false,
            }
        })
    }

    /// The format `path`'s extension names, if any (`.gz`, `.zst`, `.xz`, `.bz2`).
    pub fn from_extension(path: &Path) -> Option<Codec> {
        let extension = path.extension()?.to_str()?;
        Codec::ALL
            .into_iter()
            .find(|codec| codec.extension().eq_ignore_ascii_case(extension))
    }

    /// The decompressed bytes of `compressed`, which starts with this format's magic.
    pub fn decoder<'a>(
        self,
        compressed: Box<dyn BufRead + Send + 'a>,
    ) -> io::Result<Box<dyn Read + Send + 'a>> {
        Ok(match self {
            Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(compressed)),
            Codec::Zstd => {
                let mut decoder = zstd::stream::read::Decoder::with_buffer(compressed)?;
                decoder.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
                Box::new(ZstdWindow(decoder))
            }
            Codec::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(compressed)),
            Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(compressed)),
        })
    }
}

/// The largest zstd window read, as a power of two: 2 GiB, what `zstd --long=31` writes
/// and the format's most on a 64-bit machine (1 GiB on a 32-bit one). The decoder's default
/// (128 MiB) refuses such streams. Decoding holds one window: at most this much memory,
/// and no more than the decompressed text when the frame states its size.
const ZSTD_WINDOW_LOG_MAX: u32 = if cfg!(target_pointer_width = "64") {
    31
} else {
    30
};

/// A zstd decoder whose refusal of a frame's window says the bound, not only the library's
/// "Frame requires too much memory for decoding".
struct ZstdWindow<R>(R);

impl<R: Read> Read for ZstdWindow<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.0.read(out).map_err(|error| {
            // zstd names its errors only by their text (ZSTD_getErrorName).
            if !error.to_string().contains("requires too much memory") {
                return error;
            }
            io::Error::new(
                error.kind(),
                format!(
                    "a zstd frame needs a window larger than {} GiB, the most this reader \
                     allows (what zstd --long={ZSTD_WINDOW_LOG_MAX} writes)",
                    1u64 << (ZSTD_WINDOW_LOG_MAX - 30)
                ),
            )
        })
    }
}

/// A compressing writer made by `Codec::encoder`. Its stream is only whole once `finish`
/// has returned `Ok`: dropping it does not finish it (zstd's would not, and the others'
/// would lose the error), so a command finishes it on every path it stops by.
pub enum Encoder<W: Write> {
    /// `.gz`, one member.
    Gzip(flate2::write::GzEncoder<W>),
    /// `.zst`, one frame.
    Zstd(zstd::stream::write::Encoder<'static, W>),
    /// `.xz`, one stream.
    Xz(liblzma::write::XzEncoder<W>),
    /// `.bz2`, one stream.
    Bzip2(bzip2::write::BzEncoder<W>),
}

impl Codec {
    /// A writer that compresses into `inner` in this format, at the format's default level
    /// (gzip 6, zstd 3, xz 6, bzip2 9).
    pub fn encoder<W: Write>(self, inner: W) -> io::Result<Encoder<W>> {
        Ok(match self {
            Codec::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                inner,
                flate2::Compression::default(),
            )),
            Codec::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(
                inner,
                zstd::DEFAULT_COMPRESSION_LEVEL,
            )?),
            Codec::Xz => Encoder::Xz(liblzma::write::XzEncoder::new(inner, 6)),
            Codec::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(
                inner,
                bzip2::Compression::default(),
            )),
        })
    }
}

impl<W: Write> Encoder<W> {
    /// Compress what is pending, write the format's trailer and flush `inner`: the bytes
    /// written so far become a complete stream. Nothing may be written after.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            Encoder::Gzip(e) => e.try_finish()?,
            Encoder::Zstd(e) => e.do_finish()?,
            Encoder::Xz(e) => e.try_finish()?,
            Encoder::Bzip2(e) => e.try_finish()?,
        }
        self.get_mut().flush()
    }

    fn get_mut(&mut self) -> &mut W {
        match self {
            Encoder::Gzip(e) => e.get_mut(),
            Encoder::Zstd(e) => e.get_mut(),
            Encoder::Xz(e) => e.get_mut(),
            Encoder::Bzip2(e) => e.get_mut(),
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Encoder::Gzip(e) => e.write(buf),
            Encoder::Zstd(e) => e.write(buf),
            Encoder::Xz(e) => e.write(buf),
            Encoder::Bzip2(e) => e.write(buf),
        }
    }

    /// Flushes what the compressor can emit without ending the stream.
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Encoder::Gzip(e) => e.flush(),
            Encoder::Zstd(e) => e.flush(),
            Encoder::Xz(e) => e.flush(),
            Encoder::Bzip2(e) => e.flush(),
        }
    }
}

impl std::fmt::Display for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        let name = |head: &[u8]| Codec::detect(head).map(Codec::name);
        assert_eq!(name(b"\x1f\x8b\x08\0\0\0"), Some("gzip"));
        assert_eq!(name(b"\x28\xb5\x2f\xfd\0\0"), Some("zstd"));
        assert_eq!(name(b"\xfd7zXZ\0"), Some("xz"));
        assert_eq!(name(b"BZh91AY"), Some("bzip2"));
        assert_eq!(name(b"BZh.12"), None);
        assert_eq!(name(b"\xfd7zXZ"), None);
        assert_eq!(name(b"\x1f"), None);
        assert_eq!(name(b"4...3."), None);
        assert_eq!(name(b""), None);
    }

    /// `text` through the encoder, then back through the decoder.
    fn round_trip(codec: Codec, text: &[u8]) -> Vec<u8> {
        let mut compressed = Vec::new();
        let mut encoder = codec.encoder(&mut compressed).unwrap();
        // Small writes, as the commands make them, across the compressors' buffers.
        for piece in text.chunks(97) {
            encoder.write_all(piece).unwrap();
        }
        encoder.finish().unwrap();
        drop(encoder);
        assert_eq!(Codec::detect(&compressed), Some(codec), "{codec}");
        let mut back = Vec::new();
        codec
            .decoder(Box::new(&compressed[..]))
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        back
    }

    #[test]
    fn every_format_round_trips_the_shipped_corpora() {
        for file in ["classic.txt", "minimal.txt", "minimal_solutions.csv"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../datasets")
                .join(file);
            let text = std::fs::read(&path).unwrap();
            assert!(!text.is_empty(), "{file}");
            for codec in Codec::ALL {
                assert!(round_trip(codec, &text) == text, "{codec} {file}");
            }
        }
    }

    #[test]
    fn an_empty_stream_is_a_valid_one() {
        for codec in Codec::ALL {
            assert_eq!(round_trip(codec, b""), b"", "{codec}");
        }
    }

    /// `text` as `zstd --long=31` writes a stream: long-distance matching, and a window of
    /// 2 GiB stated in the frame (its size not being known ahead).
    fn zstd_long_31(text: &[u8]) -> Vec<u8> {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        encoder.window_log(31).unwrap();
        encoder.long_distance_matching(true).unwrap();
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_zstd_stream_with_a_2_gib_window_is_read() {
        let text =
            b"4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........\n";
        let compressed = zstd_long_31(&text.repeat(100));
        // The frame states the window: 31 is 10 + the descriptor's exponent (bits 7-3).
        assert_eq!(compressed[5] >> 3, 31 - 10);
        let mut back = Vec::new();
        Codec::Zstd
            .decoder(Box::new(&compressed[..]))
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == text.repeat(100));
    }

    #[test]
    fn a_zstd_frame_asking_for_more_than_2_gib_says_the_bound() {
        // A frame header (no content size, no checksum) whose window is 2^32 bytes.
        let frame = b"\x28\xb5\x2f\xfd\x00\xb0\x01\x00\x00";
        let error = Codec::Zstd
            .decoder(Box::new(&frame[..]))
            .unwrap()
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        let said = error.to_string();
        assert!(said.contains("window") && said.contains("2 GiB"), "{said}");
    }

    #[test]
    fn extensions() {
        let of = |p: &str| Codec::from_extension(Path::new(p));
        assert_eq!(of("a/b.txt.gz"), Some(Codec::Gzip));
        assert_eq!(of("b.ZST"), Some(Codec::Zstd));
        assert_eq!(of("b.xz"), Some(Codec::Xz));
        assert_eq!(of("b.bz2"), Some(Codec::Bzip2));
        assert_eq!(of("b.txt"), None);
        assert_eq!(of("gz"), None);
    }
}
