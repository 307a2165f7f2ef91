//! What the first bytes of a corpus say before any line is read: a UTF-8 byte-order mark
//! to skip, or the magic number of a compressed file, which is refused.

/// Bytes needed to tell every case below apart.
pub(super) const HEAD: usize = 6;

pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";

/// A compression format and the command that decompresses it to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    pub name: &'static str,
    pub cat: &'static str,
}

const MAGIC: [(&[u8], Compression); 4] = [
    (
        b"\x1f\x8b",
        Compression {
            name: "gzip",
            cat: "zcat",
        },
    ),
    (
        b"\x28\xb5\x2f\xfd",
        Compression {
            name: "zstd",
            cat: "zstdcat",
        },
    ),
    (
        b"\xfd7zXZ\x00",
        Compression {
            name: "xz",
            cat: "xzcat",
        },
    ),
    (
        b"BZh",
        Compression {
            name: "bzip2",
            cat: "bzcat",
        },
    ),
];

/// The compression `head` (a corpus's first bytes, at least `HEAD` of them unless the
/// corpus is shorter) starts with, if any.
pub(super) fn compression(head: &[u8]) -> Option<Compression> {
    MAGIC.iter().find_map(|(magic, compression)| {
        let found = match head.strip_prefix(*magic) {
            // bzip2's magic is followed by the block size, `1`-`9`: a text line starting
            // "BZh" is not a bzip2 file.
            Some(rest) if compression.name == "bzip2" => {
                matches!(rest.first(), Some(b'1'..=b'9'))
            }
            Some(_) => true,
            None => false,
        };
        found.then_some(*compression)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        let name = |head: &[u8]| compression(head).map(|c| c.name);
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
}
