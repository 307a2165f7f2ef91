//! Compressed streams: gzip, zstd, xz and bzip2, told apart by their magic numbers when
//! read and by their extensions when written. The one place that knows the formats, for
//! the corpus loader and the commands that write corpora.
//!
//! Every decoder reads concatenated members (what `cat a.gz b.gz` or a parallel
//! compressor makes) as one stream, as the formats' own command-line tools do.

use std::io::{self, BufRead, Read};
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
pub const MAGIC_LEN: usize = 6;

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
            Codec::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(compressed)?),
            Codec::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(compressed)),
            Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(compressed)),
        })
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
