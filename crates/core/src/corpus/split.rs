//! Where a line ends: LF, CRLF and a lone CR (classic Mac) each end one line.
//!
//! Both halves of the one read path split with `first_line`: the one over whole lines in
//! the reader's buffer and the one for a line that runs past it, so they cannot disagree on
//! what a line is.

/// The first line of `buf`, as far as `buf` tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Split {
    /// A whole line: `content` bytes, then its ending, `len` bytes in all.
    Line { content: usize, len: usize },
    /// No ending in `buf`: all of it is content, but for a last byte CR (`cr`), which
    /// ends the line whatever follows, and is half of a CRLF if an LF comes next.
    Open { content: usize, cr: bool },
}

#[inline(always)]
pub(super) fn first_line(buf: &[u8]) -> Split {
    match memchr::memchr2(b'\n', b'\r', buf) {
        None => Split::Open {
            content: buf.len(),
            cr: false,
        },
        Some(i) if buf[i] == b'\n' => Split::Line {
            content: i,
            len: i + 1,
        },
        Some(i) => match buf.get(i + 1) {
            Some(b'\n') => Split::Line {
                content: i,
                len: i + 2,
            },
            Some(_) => Split::Line {
                content: i,
                len: i + 1,
            },
            None => Split::Open {
                content: i,
                cr: true,
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ending_and_a_cr_that_may_be_half_a_crlf() {
        let line = |content, len| Split::Line { content, len };
        assert_eq!(first_line(b"ab\ncd"), line(2, 3));
        assert_eq!(first_line(b"ab\r\ncd"), line(2, 4));
        assert_eq!(first_line(b"ab\rcd"), line(2, 3));
        assert_eq!(first_line(b"ab\r\r\n"), line(2, 3));
        assert_eq!(first_line(b"\n"), line(0, 1));
        assert_eq!(
            first_line(b"ab\r"),
            Split::Open {
                content: 2,
                cr: true
            }
        );
        assert_eq!(
            first_line(b"abc"),
            Split::Open {
                content: 3,
                cr: false
            }
        );
        assert_eq!(
            first_line(b""),
            Split::Open {
                content: 0,
                cr: false
            }
        );
    }
}
