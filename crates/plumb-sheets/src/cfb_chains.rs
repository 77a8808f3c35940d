//! Whether a compound file's sector chains loop, judged before calamine
//! walks them.
//!
//! A compound file (the container of an `.xls`) keeps each stream as a
//! chain of sectors through its FAT; calamine follows a chain until its
//! end mark, the directory's without any bound, a stream's up to the
//! length its entry declares. A FAT entry that points back into its own
//! chain so makes calamine append sectors until memory runs out. A
//! well-formed file has no loop anywhere, so plumb reads the FAT
//! (and the mini FAT) as calamine does and refuses one that loops.

/// The FAT's marks: every value from here up ends a chain or marks a
/// sector that is not in one.
const DIFSECT: u32 = 0xFFFF_FFFC;

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Sector `id`'s bytes (sector 0 follows the header, one sector long).
fn sector(bytes: &[u8], size: usize, id: u32) -> Option<&[u8]> {
    let start = (id as usize).checked_add(1)?.checked_mul(size)?;
    bytes.get(start..start.checked_add(size)?)
}

fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// Whether following `next` from any index ever comes back to an index
/// on the same walk. Values past the table end a chain.
fn has_loop(next: &[u32]) -> bool {
    // 0: not seen; 1: on the walk under way; 2: known to end.
    let mut state = vec![0u8; next.len()];
    let mut path = Vec::new();
    for first in 0..next.len() {
        let mut at = first;
        while state[at] == 0 {
            state[at] = 1;
            path.push(at);
            match next.get(next[at] as usize) {
                Some(_) => at = next[at] as usize,
                None => break,
            }
        }
        if state[at] == 1 && next.get(next[at] as usize).is_some() {
            return true;
        }
        for p in path.drain(..) {
            state[p] = 2;
        }
    }
    false
}

/// Whether the compound file in `bytes` has a FAT or mini FAT chain
/// that loops. A file calamine cannot read this far is left to it.
pub(crate) fn loops(bytes: &[u8]) -> bool {
    let Some(shift) = bytes
        .get(0x1E..0x20)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
    else {
        return false;
    };
    if !(7..=16).contains(&shift) {
        return false;
    }
    let size = 1usize << shift;
    let most = bytes.len() / size + 1;
    // The DIFAT: the header's 109 entries, then its own chain (each
    // sector's last entry names the next), bounded as calamine bounds it.
    let mut difat: Vec<u32> =
        words(&bytes[0x4C.min(bytes.len())..0x200.min(bytes.len())]).collect();
    let mut id = u32_at(bytes, 0x44).unwrap_or(u32::MAX);
    let mut walked = 0usize;
    while id < DIFSECT {
        walked += 1;
        if walked > most {
            return true;
        }
        let Some(s) = sector(bytes, size, id) else {
            return false;
        };
        difat.extend(words(s));
        id = difat.pop().unwrap_or(u32::MAX);
    }
    let mut fat = Vec::new();
    for id in difat.into_iter().filter(|&id| id < DIFSECT) {
        let Some(s) = sector(bytes, size, id) else {
            return false;
        };
        fat.extend(words(s));
    }
    if has_loop(&fat) {
        return true;
    }
    // The mini FAT is itself a chain of the FAT (which has no loop now),
    // as long as the header says.
    let mini_len = u32_at(bytes, 0x40).unwrap_or(0) as usize;
    let mut id = u32_at(bytes, 0x3C).unwrap_or(u32::MAX);
    let mut mini = Vec::new();
    while mini.len() < mini_len.saturating_mul(size / 4) {
        let Some(s) = sector(bytes, size, id) else {
            break;
        };
        mini.extend(words(s));
        match fat.get(id as usize) {
            Some(&next) => id = next,
            None => break,
        }
    }
    has_loop(&mini)
}

#[cfg(test)]
mod tests {
    use super::has_loop;

    #[test]
    fn loops_are_found_wherever_the_walk_starts() {
        const END: u32 = 0xFFFF_FFFE;
        assert!(!has_loop(&[]));
        assert!(!has_loop(&[1, 2, END]));
        assert!(!has_loop(&[END, 0, 1, 99]));
        assert!(has_loop(&[0]));
        assert!(has_loop(&[1, 2, 0]));
        // A chain that runs into a loop further on.
        assert!(has_loop(&[1, 2, 3, 2]));
        assert!(has_loop(&[END, END, 3, 4, 5, 3]));
    }
}
