//! The search's scan: blocks of whole lines read from the stream, the
//! pattern run over a block at once, each candidate's own line checked,
//! line numbers counted as far as the next hit needs, and a line past
//! the block's cap searched in overlapping pieces.
//!
//! Reference: each line tested on its own (the test's oracle). Held equal
//! by: `tests/it/search.rs::hits_and_counts_match_the_oracle` (blocks of
//! every size) and `a_generated_file_is_searched_as_grep_searches_it`.

use std::io::BufRead;

use plumb_core::{
    cut_around, CancelToken, Predicate, Query, Refusal, SearchProgress, Subject, SubjectKind,
    SEARCH_TEXT_BYTES,
};

use super::{has_lone_cr, ContextLine, LineCut, LineHit, Tuning};

/// The block being searched: `data[..len]` holds the file's bytes from
/// offset `base`.
pub(super) struct Block<'r> {
    pub(super) reader: Box<dyn BufRead + Send + 'r>,
    pub(super) line_max: usize,
    pub(super) data: Vec<u8>,
    pub(super) len: usize,
    pub(super) base: u64,
    pub(super) eof: bool,
    /// Bytes the byte budget still lets the block read (none: no budget).
    pub(super) left: Option<u64>,
    /// Whether the budget ended the reading with bytes left unread: the
    /// block's last line, unended, is then not searched.
    pub(super) cut_short: bool,
}

impl Block<'_> {
    /// Drops `data[..keep]`, then reads until the block is full or the
    /// source ends (growing it up to the line cap when `grow`).
    pub(super) fn refill(&mut self, keep: usize, grow: bool) -> Result<(), Refusal> {
        self.data.copy_within(keep..self.len, 0);
        self.len -= keep;
        self.base += keep as u64;
        if grow && self.len == self.data.len() && self.data.len() < self.line_max {
            let size = (self.data.len() * 2).min(self.line_max);
            self.data.resize(size, 0);
        }
        while self.len < self.data.len() && !self.eof {
            let room = self.data.len() - self.len;
            let want = match self.left {
                Some(0) => {
                    self.eof = true;
                    let more = self
                        .reader
                        .fill_buf()
                        .map_err(|e| Refusal::from_io(&e, None))?;
                    self.cut_short = !more.is_empty();
                    break;
                }
                Some(left) => room.min(usize::try_from(left).unwrap_or(usize::MAX)),
                None => room,
            };
            match self.reader.read(&mut self.data[self.len..self.len + want]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.len += n;
                    self.left = self.left.map(|l| l - n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Refusal::from_io(&e, None)),
            }
        }
        Ok(())
    }

    /// The end of the whole lines in the block: after its last newline,
    /// or its end once the source ended (not the budget).
    pub(super) fn complete_end(&self, from: usize) -> usize {
        if self.eof && !self.cut_short {
            return self.len;
        }
        memchr::memrchr(b'\n', &self.data[from..self.len]).map_or(from, |i| from + i + 1)
    }
}

/// Line numbers, counted only as far as they are asked for.
pub(super) struct Lines {
    /// The index in the block up to which newlines are counted.
    pub(super) at: usize,
    /// The 0-based number of the line starting at or containing `at`.
    pub(super) line: u64,
}

impl Lines {
    pub(super) fn upto(&mut self, data: &[u8], to: usize) -> u64 {
        if to > self.at {
            self.line += bytecount::count(&data[self.at..to], b'\n') as u64;
        } else {
            // Back, to a hit among the context lines already counted.
            self.line -= bytecount::count(&data[to..self.at], b'\n') as u64;
        }
        self.at = to;
        self.line
    }
}

/// A line's content without its terminator: `[start, end)` with a
/// trailing `\r` left out.
pub(super) fn content_end(data: &[u8], start: usize, end: usize) -> usize {
    if end > start && data[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

pub(super) fn utf8_text(bytes: &[u8], at: u64) -> Result<(), Refusal> {
    match std::str::from_utf8(bytes) {
        Ok(_) => Ok(()),
        // A character cut by the budget is the cut's, not the file's.
        Err(e) if e.error_len().is_none() => Ok(()),
        Err(e) => Err(Refusal::invalid_utf8(at + e.valid_up_to() as u64)),
    }
}

/// A line's text for an answer: checked as UTF-8 (`invalid-utf8` with
/// its offset), cut around the match when longer than the budget.
pub(super) fn line_text(
    data: &[u8],
    start: usize,
    end: usize,
    base: u64,
    at: Option<(usize, usize)>,
) -> Result<(String, usize, bool), Refusal> {
    let line = &data[start..end];
    let (text, from, cut) = cut_around(line, at, SEARCH_TEXT_BYTES);
    utf8_text(
        &line[from..from + text.len().min(line.len() - from)],
        base + (start + from) as u64,
    )?;
    Ok((text, from, cut))
}

/// A line too long to hold, being searched piece by piece.
pub(super) struct LongLine {
    /// Its 0-based number, and the offset of its first byte.
    pub(super) line: u64,
    pub(super) start: u64,
    /// The hit it gave, when it gave one (its length is filled in when
    /// the line ends).
    pub(super) hit: Option<usize>,
    pub(super) matched: bool,
}

pub(super) struct Searcher<'q> {
    pub(super) query: &'q Query,
    pub(super) context: usize,
    pub(super) lines: Lines,
    pub(super) hits: Vec<LineHit>,
    pub(super) progress: SearchProgress,
    /// After-context lines the last hit still waits for.
    pub(super) pending_after: usize,
    pub(super) long_lines: u64,
    pub(super) long: Option<LongLine>,
    pub(super) cut: bool,
    pub(super) inexact: bool,
    /// The first index of the block that holds text (the BOM skipped).
    pub(super) floor: usize,
    pub(super) tune: Tuning,
    /// Hits still to pass over before one is kept (`Query::skip_hits`).
    pub(super) skip_left: u64,
}

impl Searcher<'_> {
    /// Whether this hit is one to pass over (counted, not kept).
    fn pass_over(&mut self) -> bool {
        let pass = self.skip_left > 0;
        self.skip_left -= u64::from(pass);
        pass
    }

    pub(super) fn run(
        &mut self,
        block: &mut Block<'_>,
        start: usize,
        cancel: Option<&CancelToken>,
    ) -> Result<(), Refusal> {
        let mut pos = start;
        // Skip to the line the search starts at.
        let first = self.query.offset;
        while self.lines.line < first {
            let end = block.complete_end(pos);
            let region = &block.data[pos..end];
            let want = (first - self.lines.line) as usize;
            match memchr::memchr_iter(b'\n', region).nth(want.saturating_sub(1)) {
                Some(i) if want > 0 => {
                    pos += i + 1;
                    self.lines = Lines {
                        at: pos,
                        line: first,
                    };
                }
                _ => {
                    self.lines.upto(&block.data, end);
                    if block.eof {
                        return Ok(());
                    }
                    // Lines before the start are only counted: drop them
                    // (and a line longer than the block, read so far).
                    let drop = if end == pos { block.len } else { end };
                    self.lines.at = 0;
                    block.refill(drop, false)?;
                    pos = 0;
                }
            }
        }
        loop {
            if cancel.is_some_and(CancelToken::is_cancelled) {
                return Err(Refusal::aborted(block.base + pos as u64));
            }
            let end = block.complete_end(pos);
            let full = block.len == block.data.len() && !block.eof;
            let grown = block.data.len() >= self.tune.line_max;
            if self.long.is_none() && full && grown && pos == block.len {
                // A block at the line cap read to its very end, the last
                // line ended: no line has begun (a long line opened here
                // would be a phantom line after the last), so read on
                // from here, as a long line would have, keeping nothing.
                self.lines.upto(&block.data, pos);
                self.lines.at -= pos;
                self.floor = 0;
                block.refill(pos, false)?;
                pos = 0;
                continue;
            }
            if self.long.is_some() || (end == pos && full) {
                if block.data.len() < self.tune.line_max && self.long.is_none() {
                    let keep = self.keep_from(&block.data, pos);
                    self.lines.upto(&block.data, keep);
                    self.lines.at -= keep;
                    self.floor = 0;
                    block.refill(keep, true)?;
                    pos -= keep;
                    continue;
                }
                match self.long_piece(block, pos)? {
                    Some(next) => pos = next,
                    None => return Ok(()),
                }
                continue;
            }
            self.take_after(block, pos, end)?;
            if self.search_region(block, &mut pos, end)? {
                return Ok(());
            }
            if block.eof && pos >= block.complete_end(pos) {
                return Ok(());
            }
            let keep = self.keep_from(&block.data, pos);
            self.lines.upto(&block.data, keep);
            self.lines.at -= keep;
            self.floor = 0;
            block.refill(keep, false)?;
            pos -= keep;
        }
    }

    /// Where the kept part of the block starts: the line being read, and
    /// the context lines before it (within [`CONTEXT_KEEP_BYTES`]).
    pub(super) fn keep_from(&self, data: &[u8], pos: usize) -> usize {
        let mut keep = pos;
        for _ in 0..self.context {
            if keep <= self.floor {
                break;
            }
            let prev = memchr::memrchr(b'\n', &data[self.floor..keep - 1])
                .map_or(self.floor, |i| self.floor + i + 1);
            if pos - prev > self.tune.context_keep {
                break;
            }
            keep = prev;
        }
        keep
    }

    /// The after-context lines the last hit waits for, from `pos`.
    pub(super) fn take_after(
        &mut self,
        block: &Block<'_>,
        pos: usize,
        end: usize,
    ) -> Result<(), Refusal> {
        let mut at = pos;
        while self.pending_after > 0 && at < end {
            let le = memchr::memchr(b'\n', &block.data[at..end]).map_or(end, |i| at + i);
            let number = self.lines.upto(&block.data, at) + 1;
            let ce = content_end(&block.data, at, le);
            let (text, _, cut) = line_text(&block.data, at, ce, block.base, None)?;
            if let Some(hit) = self.hits.last_mut() {
                hit.after.push(ContextLine {
                    line: number,
                    text,
                    cut,
                });
            }
            self.pending_after -= 1;
            at = le + 1;
        }
        Ok(())
    }

    /// Searches the whole lines `[pos, end)`; returns whether the search
    /// is over (the hit past the limit was found).
    pub(super) fn search_region(
        &mut self,
        block: &Block<'_>,
        pos: &mut usize,
        end: usize,
    ) -> Result<bool, Refusal> {
        let data = &block.data[..end];
        let matcher = match &self.query.predicate {
            // Lines with a lone `\r` are searched one by one when it could
            // hide a match: the regex run over many lines at once takes
            // it for a line end.
            Predicate::Pattern(m)
                if !m.anchors_whole_text()
                    && (!m.lone_cr_hides_matches() || !has_lone_cr(&data[*pos..])) =>
            {
                Some(m)
            }
            _ => None,
        };
        while *pos < end {
            let (ls, le, at) = match matcher {
                Some(m) if m.required_prefix().is_some() => {
                    // The first line holding the prefix; the regex runs
                    // on that line alone, from the prefix on (no match
                    // starts before it).
                    let Some(c) = m.candidate(data, *pos) else {
                        *pos = end;
                        break;
                    };
                    let ls = memchr::memrchr(b'\n', &data[*pos..c]).map_or(*pos, |i| *pos + i + 1);
                    let le = memchr::memchr(b'\n', &data[c..]).map_or(end, |i| c + i);
                    let ce = content_end(data, ls, le);
                    match m.find_in_line(&data[ls..ce], c.min(ce) - ls) {
                        Some(at) => (ls, le, Some(at)),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
                Some(m) => {
                    let Some((ms, me)) = m.find_at(data, *pos) else {
                        *pos = end;
                        break;
                    };
                    // An empty match after the last newline is on no line.
                    if ms == end && (end == 0 || data[end - 1] == b'\n') {
                        *pos = end;
                        break;
                    }
                    let ls = memchr::memrchr(b'\n', &data[*pos..ms]).map_or(*pos, |i| *pos + i + 1);
                    let le = memchr::memchr(b'\n', &data[ms..]).map_or(end, |i| ms + i);
                    let ce = content_end(data, ls, le);
                    // A line holding a `\r` is judged alone (its anchors
                    // read a lone `\r` as grep does).
                    let at = if me <= ce && memchr::memchr(b'\r', &data[ls..ce]).is_none() {
                        Some((ms - ls, me - ls))
                    } else {
                        // The match ran past the line's end: the line
                        // alone decides.
                        m.find_in_line(&data[ls..ce], 0)
                    };
                    match at {
                        Some(at) => (ls, le, Some(at)),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
                None => {
                    let ls = *pos;
                    let le = memchr::memchr(b'\n', &data[ls..]).map_or(end, |i| ls + i);
                    let ce = content_end(data, ls, le);
                    let line = &data[ls..ce];
                    let hit = match &self.query.predicate {
                        Predicate::Pattern(m) => m.find_in_line(line, 0),
                        p => p
                            .test(&Subject::new(SubjectKind::Text, line))
                            .then_some((0, 0)),
                    };
                    match hit {
                        Some(at) => (
                            ls,
                            le,
                            matches!(self.query.predicate, Predicate::Pattern(_)).then_some(at),
                        ),
                        None => {
                            *pos = (le + 1).min(end);
                            continue;
                        }
                    }
                }
            };
            *pos = (le + 1).min(end);
            if self.hit(block, ls, le, at)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A hit on the line `[ls, le)`; returns whether the search is over.
    pub(super) fn hit(
        &mut self,
        block: &Block<'_>,
        ls: usize,
        le: usize,
        at: Option<(usize, usize)>,
    ) -> Result<bool, Refusal> {
        self.progress.total += 1;
        if self.query.count_only || self.pass_over() {
            return Ok(false);
        }
        let number = self.lines.upto(&block.data, ls);
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(number);
            return Ok(true);
        }
        let data = &block.data;
        let ce = content_end(data, ls, le);
        let (text, from, cut) = line_text(data, ls, ce, block.base, at)?;
        self.cut |= cut;
        let mut before = Vec::new();
        let mut start = ls;
        for k in 1..=self.context as u64 {
            if start <= self.floor || k > number {
                break;
            }
            let prev = memchr::memrchr(b'\n', &data[self.floor..start - 1])
                .map_or(self.floor, |i| self.floor + i + 1);
            let pce = content_end(data, prev, start - 1);
            let (t, _, c) = line_text(data, prev, pce, block.base, None)?;
            before.push(ContextLine {
                line: number + 1 - k,
                text: t,
                cut: c,
            });
            start = prev;
        }
        before.reverse();
        self.hits.push(LineHit {
            line: number + 1,
            byte_offset: block.base + ls as u64,
            matched: at.map(|(s, e)| {
                let s = s.saturating_sub(from).min(text.len());
                [s, e.saturating_sub(from).clamp(s, text.len())]
            }),
            text,
            cut: cut.then_some(LineCut {
                from: from as u64,
                bytes: Some((ce - ls) as u64),
            }),
            before,
            after: Vec::new(),
        });
        self.pending_after = self.context;
        // The lines right after it, as far as the block holds them.
        let end = block.complete_end(ls);
        self.take_after(block, (le + 1).min(end), end)?;
        Ok(false)
    }

    /// One piece of a line longer than [`TEXT_LINE_MAX_BYTES`]: searched
    /// for a match (until the line gave one), then dropped but for the
    /// overlap. Returns where to go on, or `None` when the search is over.
    pub(super) fn long_piece(
        &mut self,
        block: &mut Block<'_>,
        pos: usize,
    ) -> Result<Option<usize>, Refusal> {
        if self.long.is_none() {
            self.long_lines += 1;
            let line = self.lines.upto(&block.data, pos);
            self.long = Some(LongLine {
                line,
                start: block.base + pos as u64,
                hit: None,
                matched: false,
            });
        }
        let newline = memchr::memchr(b'\n', &block.data[pos..block.len]).map(|i| pos + i);
        let piece_end = newline.unwrap_or(block.len);
        let long = self.long.as_ref().map(|l| (l.matched, l.line, l.start));
        if let Some((false, line, start)) = long {
            // A piece after a seam may open inside a character.
            let lead = block.data[pos..piece_end]
                .iter()
                .take(3)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            let pos = pos + lead;
            // A `\r` is a line's ending only at its `\n` (or the end of
            // the file): at a seam it is a byte of the line, which a
            // pattern may hold.
            let stop = if newline.is_some() || block.eof {
                content_end(&block.data, pos, piece_end)
            } else {
                piece_end
            };
            let piece = &block.data[pos..stop];
            let found = match &self.query.predicate {
                Predicate::Pattern(m) => m
                    .find_in_line(piece, 0)
                    // A match at the piece's end may go on in the next.
                    .filter(|&(_, e)| newline.is_some() || block.eof || e < piece.len()),
                // A predicate on a line too long to hold: only a pattern
                // is searched in pieces.
                _ => None,
            };
            if !matches!(self.query.predicate, Predicate::Pattern(ref m) if m.is_literal()) {
                self.inexact = true;
            }
            if let Some((ms, me)) = found {
                if let Some(l) = self.long.as_mut() {
                    l.matched = true;
                }
                self.progress.total += 1;
                if !self.query.count_only && !self.pass_over() {
                    if self.hits.len() >= self.query.limit {
                        self.progress.has_more = true;
                        self.progress.next_offset = Some(line);
                        return Ok(None);
                    }
                    let from_line = block.base + pos as u64 - start;
                    let (text, from, _) = cut_around(piece, Some((ms, me)), SEARCH_TEXT_BYTES);
                    utf8_text(
                        &piece[from..from + text.len().min(piece.len() - from)],
                        block.base + (pos + from) as u64,
                    )?;
                    self.cut = true;
                    self.hits.push(LineHit {
                        line: line + 1,
                        byte_offset: start,
                        matched: Some([ms - from, (me - from).min(text.len())]),
                        text,
                        cut: Some(LineCut {
                            from: from_line + from as u64,
                            bytes: None,
                        }),
                        before: Vec::new(),
                        after: Vec::new(),
                    });
                    if let Some(l) = self.long.as_mut() {
                        l.hit = Some(self.hits.len() - 1);
                    }
                    self.pending_after = self.context;
                }
            }
        }
        match newline {
            Some(nl) => {
                // The line ends here.
                if let Some(l) = self.long.take() {
                    if let Some(h) = l.hit {
                        let ce = content_end(&block.data, pos, nl);
                        let full = block.base + ce as u64 - l.start;
                        if let Some(c) = self.hits[h].cut.as_mut() {
                            c.bytes = Some(full);
                        }
                    }
                    self.lines = Lines {
                        at: nl + 1,
                        line: l.line + 1,
                    };
                    // Context never reaches back into the long line.
                    self.floor = nl + 1;
                }
                Ok(Some(nl + 1))
            }
            None if block.eof => {
                if let Some(l) = self.long.take() {
                    if let Some(h) = l.hit {
                        let ce = content_end(&block.data, pos, block.len);
                        if let Some(c) = self.hits[h].cut.as_mut() {
                            c.bytes = Some(block.base + ce as u64 - l.start);
                        }
                    }
                }
                Ok(None)
            }
            None => {
                // Keep the overlap (a match may straddle the seam).
                // At least a literal's length, so none is missed.
                let needle = self
                    .query
                    .predicate
                    .matcher()
                    .map_or(0, |m| m.pattern().len());
                let back = self.tune.overlap.max(needle).min(block.len / 2);
                let keep = (block.len - back).max(pos);
                self.floor = 0;
                self.lines.at = 0;
                block.refill(keep, false)?;
                Ok(Some(0))
            }
        }
    }
}
