//! What calamine would build for a legacy `.xls`, judged before it does.
//!
//! calamine parses every sheet of an xls when the workbook opens: each
//! sheet's cells are gathered (with room reserved for the rows × columns
//! its DIMENSIONS record declares) and laid out as a dense grid of its
//! used range, and again for its formulas. Two cells at A1 and IV65536
//! make a grid of 16 million cells; sixty sheet entries pointing at that
//! one sheet make sixty. So plumb walks the same records first, with
//! the `cfb` crate for the compound file and a loop over the BIFF
//! records (no recursion, nothing held but counts), adds up what each
//! sheet entry would cost, and refuses past [`SHEETS_MAX_GRID_BYTES`].

use std::collections::HashMap;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::mem::size_of;

use calamine::{Cell, Data};

/// The most memory calamine may be asked to build for an xls workbook's
/// or ods workbook's sheets when it opens (every sheet's cells, their
/// dense grids of values and of formulas, the room an xls's DIMENSIONS
/// records reserve, an ods's repeats and runs of spaces copied out), as
/// plumb counts it from the file before calamine runs. It is set so
/// that those grids, the copy calamine makes of the sheet read, and the
/// file itself stay within the 32 MiB every reader keeps to.
pub const SHEETS_MAX_GRID_BYTES: u64 = 12 << 20;

/// The most BIFF bytes walked, as a multiple of the stream's length:
/// sheet entries may point into one another's records, and each is
/// walked once per distinct start.
const WALK_FACTOR: u64 = 4;

/// What the judge found: the bytes calamine would build, when it could
/// count them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Within the cap (the bytes counted).
    Fits(u64),
    /// Past the cap (the bytes counted, at least).
    TooLarge(u64),
    /// Sheet entries that point into one another past the walk's
    /// budget.
    Tangled,
    /// No workbook stream to judge: calamine names the fault.
    Unjudged,
    /// The compound file does not read (the cfb crate's account).
    Malformed(String),
}

#[derive(Default, Clone, Copy)]
struct Extent {
    rows: Option<(u32, u32)>,
    cols: Option<(u32, u32)>,
    n: u64,
}

impl Extent {
    fn add(&mut self, row: u32, col: u32) {
        self.rows = Some(
            self.rows
                .map_or((row, row), |(a, b)| (a.min(row), b.max(row))),
        );
        self.cols = Some(
            self.cols
                .map_or((col, col), |(a, b)| (a.min(col), b.max(col))),
        );
        self.n += 1;
    }

    fn grid(&self) -> u64 {
        match (self.rows, self.cols) {
            (Some((r0, r1)), Some((c0, c1))) => {
                u64::from(r1 - r0 + 1).saturating_mul(u64::from(c1 - c0 + 1))
            }
            _ => 0,
        }
    }
}

fn u16_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        d.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// Judges the workbook in `bytes` (a compound file).
pub(crate) fn judge(bytes: &[u8]) -> Verdict {
    // A compound file the cfb crate cannot read cannot be judged, and
    // calamine's own reader, laxer, would build its grids unjudged: it
    // is refused as the malformed file it is.
    let mut file = match cfb::CompoundFile::open(Cursor::new(bytes)) {
        Ok(f) => f,
        Err(e) => return Verdict::Malformed(e.to_string()),
    };
    let name = if file.is_stream("/Workbook") {
        "/Workbook"
    } else if file.is_stream("/Book") {
        "/Book"
    } else {
        return Verdict::Unjudged;
    };
    let Ok(mut stream) = file.open_stream(name) else {
        return Verdict::Unjudged;
    };
    let len = stream.len();
    let mut budget = len.saturating_mul(WALK_FACTOR).max(1 << 20);
    // The sheet entries (BOUNDSHEET), from the globals substream.
    let mut starts = Vec::new();
    let mut buf = Vec::with_capacity(8224);
    while let Some(typ) = record(&mut stream, &mut buf, &mut budget) {
        match typ {
            0x0085 => {
                if let Some(p) = u32_at(&buf, 0) {
                    starts.push(u64::from(p));
                }
            }
            0x000A => break,
            _ => {}
        }
    }
    let mut costs: HashMap<u64, u64> = HashMap::new();
    let mut total = 0u64;
    for start in starts {
        let cost = match costs.get(&start) {
            Some(&c) => c,
            None => {
                if stream.seek(SeekFrom::Start(start)).is_err() {
                    continue;
                }
                let Some(c) = sheet_cost(&mut stream, &mut buf, &mut budget) else {
                    return Verdict::Tangled;
                };
                costs.insert(start, c);
                c
            }
        };
        total = total.saturating_add(cost);
        if total > SHEETS_MAX_GRID_BYTES {
            return Verdict::TooLarge(total);
        }
    }
    Verdict::Fits(total)
}

/// Reads the next record into `buf`, returning its type; `None` at the
/// stream's end, on a short record, or once `budget` is spent.
fn record(stream: &mut impl Read, buf: &mut Vec<u8>, budget: &mut u64) -> Option<u16> {
    let mut head = [0u8; 4];
    stream.read_exact(&mut head).ok()?;
    let typ = u16::from_le_bytes([head[0], head[1]]);
    let len = u16::from_le_bytes([head[2], head[3]]);
    let Some(left) = budget.checked_sub(4 + u64::from(len)) else {
        *budget = 0;
        return None;
    };
    *budget = left;
    buf.clear();
    stream.by_ref().take(u64::from(len)).read_to_end(buf).ok()?;
    Some(typ)
}

/// What calamine builds for the sheet whose BOF is at the stream's
/// position, walked to its EOF as calamine walks it (nested substreams,
/// such as an embedded chart's, passed over); `None` once the walk's
/// budget is spent.
fn sheet_cost(stream: &mut impl Read, buf: &mut Vec<u8>, budget: &mut u64) -> Option<u64> {
    let mut cells = Extent::default();
    let mut formulas = Extent::default();
    let mut reserved = 0u64;
    let mut seen_bof = false;
    let mut nested = 0u32;
    loop {
        if *budget == 0 {
            return None;
        }
        let Some(typ) = record(stream, buf, budget) else {
            // The stream ended (or a record was cut): calamine stops or
            // fails there too. A spent budget is told apart.
            if *budget == 0 {
                return None;
            }
            break;
        };
        let d = buf.as_slice();
        if nested > 0 {
            match typ {
                0x0809 => nested += 1,
                0x000A => nested -= 1,
                _ => {}
            }
            continue;
        }
        match typ {
            0x0809 if seen_bof => nested += 1,
            0x0809 => seen_bof = true,
            0x000A => break,
            0x0200 => {
                let (rf, rl, cf, cl) = if d.len() == 10 {
                    (u16_at(d, 0), u16_at(d, 2), u16_at(d, 4), u16_at(d, 6))
                } else {
                    (u32_at(d, 0), u32_at(d, 4), u16_at(d, 8), u16_at(d, 10))
                };
                if let (Some(rf), Some(rl), Some(cf), Some(cl)) = (rf, rl, cf, cl) {
                    let rows = u64::from(rl.saturating_sub(rf)) + 1;
                    let cols = u64::from(cl.saturating_sub(cf)) + 1;
                    reserved = reserved.max(rows.saturating_mul(cols));
                }
            }
            // Number, Label, RString, BoolErr, Rk, LabelSst: one cell.
            0x0203 | 0x0204 | 0x00D6 | 0x0205 | 0x027E | 0x00FD => {
                if let (Some(r), Some(c)) = (u16_at(d, 0), u16_at(d, 2)) {
                    cells.add(r, c);
                }
            }
            // MulRk: a run of cells on one row.
            0x00BD => {
                if let (Some(r), Some(c0), Some(c1)) = (
                    u16_at(d, 0),
                    u16_at(d, 2),
                    d.len().checked_sub(2).and_then(|e| u16_at(d, e)),
                ) {
                    cells.add(r, c0);
                    cells.add(r, c1.max(c0));
                    cells.n += u64::from(c1.saturating_sub(c0));
                }
            }
            // Formula: a value cell and a formula cell.
            0x0006 => {
                if let (Some(r), Some(c)) = (u16_at(d, 0), u16_at(d, 2)) {
                    cells.add(r, c);
                    formulas.add(r, c);
                }
            }
            _ => {}
        }
    }
    let cell = size_of::<Cell<Data>>() as u64;
    let text_cell = size_of::<Cell<String>>() as u64;
    Some(
        reserved
            .max(cells.n)
            .saturating_mul(cell)
            .saturating_add(cells.grid().saturating_mul(size_of::<Data>() as u64))
            .saturating_add(formulas.n.saturating_mul(text_cell))
            .saturating_add(formulas.grid().saturating_mul(size_of::<String>() as u64)),
    )
}
