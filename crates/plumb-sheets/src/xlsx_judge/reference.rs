//! The judge over quick-xml's events (the reader calamine itself uses),
//! slower than the byte scanner and held equal to it.

use std::io::BufReader;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::{check_reference, check_table, declared_count, text, too_long, Finding, Part, Runs};

pub(super) fn judge(xml: &[u8], shared: bool) -> Result<bool, Finding> {
    let echo = "p";
    let mut reader = Reader::from_reader(BufReader::new(Runs {
        inner: xml,
        run: 0,
        tripped: false,
        read: 0,
    }));
    let mut buf = Vec::new();
    let mut p = Part::default();
    loop {
        buf.clear();
        let event = reader.read_event_into(&mut buf);
        if reader.get_ref().get_ref().tripped {
            return Err(too_long(echo));
        }
        let Ok(event) = event else {
            return Ok(p.padded);
        };
        match event {
            Event::Start(e) => {
                start(&mut p, &e, shared, echo)?;
                if matches!(e.local_name().as_ref(), "si" | "is") {
                    p.string = Some(0);
                }
                if !shared {
                    p.open(e.local_name().as_ref().as_bytes(), false);
                }
            }
            Event::Empty(e) => {
                start(&mut p, &e, shared, echo)?;
                if !shared {
                    p.open(e.local_name().as_ref().as_bytes(), true);
                }
            }
            Event::End(e) => {
                if matches!(e.local_name().as_ref(), "si" | "is") {
                    p.string = None;
                }
                if !shared {
                    p.close(e.local_name().as_ref().as_bytes());
                }
            }
            Event::Text(t) => {
                text(&mut p, t.len() as u64, shared, echo)?;
                if !shared {
                    p.value_text(t.as_bytes());
                }
            }
            Event::CData(t) => text(&mut p, t.len() as u64, shared, echo)?,
            Event::GeneralRef(r) => {
                text(&mut p, r.len() as u64 + 2, shared, echo)?;
                if !shared {
                    p.value_text(b"&;");
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(p.padded)
}

fn attr<'a>(e: &'a BytesStart<'_>, key: &str) -> Option<std::borrow::Cow<'a, str>> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == key)
        .map(|a| a.value)
}

fn start(p: &mut Part, e: &BytesStart<'_>, shared: bool, echo: &str) -> Result<(), Finding> {
    match e.local_name().as_ref() {
        "sst" if shared => {
            if let Some(v) = attr(e, "uniqueCount") {
                // calamine reserves by the count when it parses as a
                // number; an unparsable one reserves nothing.
                p.declared = declared_count(v.as_bytes());
            }
            check_table(p, echo)?;
        }
        "si" if shared => {
            p.entries += 1;
            check_table(p, echo)?;
        }
        "c" | "row" => {
            if let Some(r) = attr(e, "r") {
                check_reference(r.as_bytes(), echo)?;
            }
        }
        "dimension" | "mergeCell" => {
            if let Some(r) = attr(e, "ref") {
                for side in r.split(':') {
                    check_reference(side.as_bytes(), echo)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}
