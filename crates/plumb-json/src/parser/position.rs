//! Positions and fault messages: columns counted in characters (the
//! characters of the line that lie in earlier pushes are summed when a
//! push ends), and the `invalid-json` refusal with line, column and byte.

use plumb_core::{Refusal, RefusalReason};

use super::JsonParser;

/// Counts characters: every byte that is not a UTF-8 continuation byte.
/// Eight bytes at a time, since columns are kept for every push.
pub(crate) fn chars(b: &[u8]) -> u64 {
    // Most text is ASCII, and std checks that at memory speed.
    if b.is_ascii() {
        return b.len() as u64;
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let mut continuation = 0u64;
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        // Bit 7 set and bit 6 clear: 10xxxxxx.
        continuation += u64::from((x & !(x << 1) & HIGH).count_ones());
    }
    let tail = words.remainder();
    continuation += tail.iter().filter(|&&c| c & 0xC0 == 0x80).count() as u64;
    b.len() as u64 - continuation
}

impl JsonParser {
    #[cold]
    pub(super) fn error(
        &mut self,
        what: &str,
        hint: &str,
        at: u64,
        line: u64,
        col: u64,
    ) -> Refusal {
        self.failed = true;
        Refusal::new(
            RefusalReason::InvalidJson,
            format!("{what} at line {line} column {col} (byte {at}); {hint}"),
        )
        .with_byte_offset(at)
        .with_line(line)
        .with_column(col)
    }

    pub(super) fn col_at(&self, input: &[u8], i: usize) -> u64 {
        match self.line_start {
            Some(s) => chars(&input[s..i.min(input.len())]) + 1,
            None => self.col_base + chars(&input[..i.min(input.len())]) + 1,
        }
    }

    #[cold]
    pub(super) fn fail_at(
        &mut self,
        input: &[u8],
        i: usize,
        base: u64,
        what: &str,
        hint: &str,
    ) -> Refusal {
        let col = self.col_at(input, i);
        let line = self.line;
        self.error(what, hint, base + i as u64, line, col)
    }

    #[cold]
    pub(super) fn fail_token(&mut self, input: &[u8], what: &str, hint: &str) -> Refusal {
        let col = match self.token_idx {
            Some(t) => self.col_at(input, t),
            None => self.token_col,
        };
        let (at, line) = (self.token_start, self.token_line);
        self.error(what, hint, at, line, col)
    }
}

pub(super) fn shown_char(b: u8) -> String {
    if b.is_ascii_graphic() {
        char::from(b).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// Names the byte at `i` in a message. Only the byte itself is used, so
/// the message is the same wherever a push boundary fell.
pub(super) fn shown(input: &[u8], i: usize) -> String {
    match input.get(i) {
        Some(&b) if b.is_ascii_graphic() => format!("`{}`", char::from(b)),
        Some(&b) if b < 0x80 => format!("byte 0x{b:02x}"),
        Some(&b) => format!("a non-ASCII character (byte 0x{b:02x})"),
        None => "the end of the input".to_owned(),
    }
}
