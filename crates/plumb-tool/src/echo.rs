//! Bounded echoes of what the caller sent.
//!
//! A refusal names the path, pointer or column it could not serve, but
//! the caller chose those strings and may make them megabytes long. Every
//! echo goes through here: short strings come back whole; longer ones are
//! cut at a character boundary, with a marked ellipsis and their full
//! length, so no answer grows with its input.

/// The most bytes of a caller's string one echo carries whole.
pub const ECHO_MAX_BYTES: usize = 256;

/// `text`, whole when it fits [`ECHO_MAX_BYTES`], else cut with a marked
/// ellipsis and its full length in bytes.
pub fn echo(text: &str) -> String {
    echo_within(text, ECHO_MAX_BYTES)
}

/// `text`, whole when it fits `max` bytes, else its first characters (at
/// most `max` bytes) followed by `…[cut: N bytes in all]`.
pub fn echo_within(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[cut: {} bytes in all]", &text[..end], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_whole_and_long_text_is_marked() {
        assert_eq!(echo("data/a.csv"), "data/a.csv");
        let long = "é".repeat(1000);
        let cut = echo(&long);
        assert!(cut.len() < ECHO_MAX_BYTES + 40);
        assert!(cut.ends_with("…[cut: 2000 bytes in all]"), "{cut}");
        assert!(long.starts_with(cut.split('…').next().unwrap()));
    }
}
