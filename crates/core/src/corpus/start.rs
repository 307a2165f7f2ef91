//! What the first bytes of a corpus say before any line is read: the magic number of a
//! compressed stream (see [`crate::compress`]), then a UTF-8 byte-order mark to skip.

/// Bytes needed to tell every case apart.
pub(super) const HEAD: usize = crate::compress::MAGIC_LEN;

pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";
