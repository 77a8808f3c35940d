//! Parquet values as JSON, exactly: what a row's fields and a column's
//! statistics become.
//!
//! A number a double would misstate (an int64 past 2^53, a decimal of
//! many digits) is a `$literal` placeholder with its text, as in every
//! plumb answer; a date is an ISO date, a time and a timestamp are
//! RFC 3339 text with as many fraction digits as their unit holds and
//! `Z` when the writer said they are in UTC; a float that is not finite
//! is a `$float` placeholder (JSON has no NaN); bytes the writer did not
//! call text are a `$bytes` placeholder when they read as UTF-8 and a
//! `$hex` one otherwise. The schema node travels with each value,
//! because the `parquet` crate's record reader hands some logical types
//! (a nanosecond timestamp) over as their physical integers.

use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as PhysicalType};
use parquet::data_type::{ByteArray, Decimal};
use parquet::record::{Field, List, Map as PqMap, Row};
use parquet::schema::types::Type;
use serde_json::{json, Map, Value};

use plumb_core::{literal_placeholder, number_literal_precision};

/// The most bytes of a string or byte value a select returns; a longer
/// one is a `$truncated` placeholder carrying its full length (the cap
/// every plumb answer applies to a captured string).
pub const PARQUET_VALUE_TEXT_BYTES: usize = 64 << 10;

/// The most members of one list or map a select returns; the rest are
/// counted in a `$more` entry at the end.
pub const PARQUET_VALUE_MEMBERS: usize = 1000;

/// What rendering cut, so the answer can say it is not verbatim.
#[derive(Debug, Default)]
pub(crate) struct Cuts {
    pub(crate) converted: bool,
}

/// How a leaf of the schema reads: its logical type, or the converted
/// type an older writer gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    Plain,
    Text,
    TimestampNanos { utc: bool },
    TimestampMillis { utc: bool },
    TimestampMicros { utc: bool },
    TimeNanos,
    Unsigned,
    Decimal { scale: i32 },
}

pub(crate) fn leaf_of(node: &Type) -> Leaf {
    let info = node.get_basic_info();
    match info.logical_type_ref() {
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json) => Leaf::Text,
        Some(LogicalType::Timestamp(t)) => match t.unit {
            TimeUnit::NANOS => Leaf::TimestampNanos {
                utc: t.is_adjusted_to_u_t_c,
            },
            TimeUnit::MICROS => Leaf::TimestampMicros {
                utc: t.is_adjusted_to_u_t_c,
            },
            TimeUnit::MILLIS => Leaf::TimestampMillis {
                utc: t.is_adjusted_to_u_t_c,
            },
        },
        Some(LogicalType::Time(t)) if t.unit == TimeUnit::NANOS => Leaf::TimeNanos,
        Some(LogicalType::Integer(i)) if !i.is_signed => Leaf::Unsigned,
        Some(LogicalType::Decimal(d)) => Leaf::Decimal { scale: d.scale },
        _ => match info.converted_type() {
            ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON => Leaf::Text,
            ConvertedType::TIMESTAMP_MILLIS => Leaf::TimestampMillis { utc: true },
            ConvertedType::TIMESTAMP_MICROS => Leaf::TimestampMicros { utc: true },
            ConvertedType::UINT_8
            | ConvertedType::UINT_16
            | ConvertedType::UINT_32
            | ConvertedType::UINT_64 => Leaf::Unsigned,
            ConvertedType::DECIMAL if node.is_primitive() => Leaf::Decimal {
                scale: node.get_scale(),
            },
            _ => Leaf::Plain,
        },
    }
}

/// Whether a timestamp column's values are in UTC, for the record
/// reader's millisecond and microsecond fields.
fn utc_of(node: &Type) -> bool {
    match leaf_of(node) {
        Leaf::TimestampMillis { utc }
        | Leaf::TimestampMicros { utc }
        | Leaf::TimestampNanos { utc } => utc,
        // INT96 (Spark's legacy timestamps) are instants.
        _ => true,
    }
}

/// A row as a JSON object, its fields in schema order.
pub(crate) fn row_json(row: &Row, schema: &Type, cuts: &mut Cuts) -> Value {
    group_json(row, schema, cuts)
}

fn group_json(row: &Row, schema: &Type, cuts: &mut Cuts) -> Value {
    let children = if schema.is_group() {
        schema.get_fields()
    } else {
        &[]
    };
    let mut out = Map::new();
    for (name, field) in row.get_column_iter() {
        let node = children.iter().find(|c| c.name() == name.as_str());
        out.insert(name.clone(), field_json(field, node.map(|n| &**n), cuts));
    }
    Value::Object(out)
}

/// The schema node of a list's elements: the leaf or group under the
/// LIST annotation's repeated level (or the repeated node itself, for
/// the legacy two-level form).
fn element_node(node: &Type) -> Option<&Type> {
    if !node.is_group() {
        return Some(node);
    }
    let repeated = node.get_fields().first()?;
    if repeated.is_group() && repeated.get_fields().len() == 1 {
        let inner = &repeated.get_fields()[0];
        if repeated.name() != "array" && !repeated.name().ends_with("_tuple") {
            return Some(inner);
        }
    }
    Some(repeated)
}

/// The key and value nodes of a map.
fn map_nodes(node: &Type) -> (Option<&Type>, Option<&Type>) {
    let Some(kv) = node.is_group().then(|| node.get_fields().first()).flatten() else {
        return (None, None);
    };
    if !kv.is_group() {
        return (None, None);
    }
    let fields = kv.get_fields();
    (fields.first().map(|t| &**t), fields.get(1).map(|t| &**t))
}

fn field_json(field: &Field, node: Option<&Type>, cuts: &mut Cuts) -> Value {
    let leaf = node.map_or(Leaf::Plain, leaf_of);
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(v) => Value::from(*v),
        Field::Short(v) => Value::from(*v),
        Field::Int(v) => match leaf {
            // A UINT_32 the record reader left signed.
            Leaf::Unsigned => Value::from(*v as u32),
            _ => Value::from(*v),
        },
        Field::UByte(v) => Value::from(*v),
        Field::UShort(v) => Value::from(*v),
        Field::UInt(v) => Value::from(*v),
        Field::Long(v) => match leaf {
            Leaf::TimestampNanos { utc } => timestamp_json(i128::from(*v), 9, utc),
            Leaf::TimeNanos => time_json(i128::from(*v), 9),
            Leaf::Unsigned => integer_text(&(*v as u64).to_string()),
            _ => integer_text(&v.to_string()),
        },
        Field::ULong(v) => integer_text(&v.to_string()),
        Field::Float16(v) => float_json(f64::from(f32::from(*v)), &f32::from(*v).to_string()),
        Field::Float(v) => float_json(f64::from(*v), &v.to_string()),
        Field::Double(v) => float_json(*v, &v.to_string()),
        Field::Decimal(d) => decimal_json(d),
        Field::Str(s) => text_json(s, cuts),
        Field::Bytes(b) => bytes_json(b, leaf, cuts),
        Field::Date(days) => Value::String(date_text(i64::from(*days))),
        Field::TimeMillis(ms) => time_json(i128::from(*ms), 3),
        Field::TimeMicros(us) => time_json(i128::from(*us), 6),
        Field::TimestampMillis(ms) => timestamp_json(i128::from(*ms), 3, node.is_none_or(utc_of)),
        Field::TimestampMicros(us) => timestamp_json(i128::from(*us), 6, node.is_none_or(utc_of)),
        Field::Group(row) => match node {
            Some(n) => group_json(row, n, cuts),
            None => group_json(row, &empty_group(), cuts),
        },
        Field::ListInternal(list) => list_json(list, node.and_then(element_node), cuts),
        Field::MapInternal(map) => map_json(map, node.map_or((None, None), map_nodes), cuts),
    }
}

fn empty_group() -> Type {
    Type::group_type_builder("group")
        .with_repetition(Repetition::OPTIONAL)
        .build()
        .unwrap_or_else(|_| {
            Type::group_type_builder("group")
                .build()
                .expect("a bare group builds")
        })
}

fn list_json(list: &List, element: Option<&Type>, cuts: &mut Cuts) -> Value {
    let elements = list.elements();
    let mut out: Vec<Value> = elements
        .iter()
        .take(PARQUET_VALUE_MEMBERS)
        .map(|f| field_json(f, element, cuts))
        .collect();
    if elements.len() > PARQUET_VALUE_MEMBERS {
        cuts.converted = true;
        out.push(json!({"$more": elements.len() - PARQUET_VALUE_MEMBERS}));
    }
    Value::Array(out)
}

fn map_json(map: &PqMap, (key, value): (Option<&Type>, Option<&Type>), cuts: &mut Cuts) -> Value {
    let entries = map.entries();
    let mut out: Vec<Value> = entries
        .iter()
        .take(PARQUET_VALUE_MEMBERS)
        .map(|(k, v)| json!({"key": field_json(k, key, cuts), "value": field_json(v, value, cuts)}))
        .collect();
    if entries.len() > PARQUET_VALUE_MEMBERS {
        cuts.converted = true;
        out.push(json!({"$more": entries.len() - PARQUET_VALUE_MEMBERS}));
    }
    Value::Array(out)
}

/// An integer's decimal text as JSON: a number when a double holds it,
/// else a `$literal`.
pub(crate) fn integer_text(text: &str) -> Value {
    plumb_core::integer_json(text)
}

/// A float as JSON: the number (its shortest text reads back to the
/// same float), or `{"$float": "NaN"}` for what JSON cannot write.
pub(crate) fn float_json(v: f64, shortest: &str) -> Value {
    if v.is_nan() {
        return json!({"$float": "NaN"});
    }
    if v.is_infinite() {
        return json!({"$float": if v > 0.0 { "Infinity" } else { "-Infinity" }});
    }
    // The float's own shortest text (an f32's, not its widened double's).
    match shortest.parse::<f64>() {
        Ok(x) => serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number),
        Err(_) => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
    }
}

/// A float's text as a select shows it (serde_json writes a finite
/// double with ryu: `1.0`, `1e20`), or `NaN`, `Infinity`, `-Infinity`;
/// the flag says whether it is a finite number. An f32 is given as its
/// own shortest text read as a double, as select reads it.
pub(crate) fn float_text(v: f64, buf: &mut ryu::Buffer) -> (&str, bool) {
    if v.is_finite() {
        (buf.format_finite(v), true)
    } else if v.is_nan() {
        ("NaN", false)
    } else if v > 0.0 {
        ("Infinity", false)
    } else {
        ("-Infinity", false)
    }
}

/// An f32 as the double select shows: its shortest text, read back.
pub(crate) fn f32_shown(v: f32) -> f64 {
    let mut b = ryu::Buffer::new();
    if v.is_finite() {
        b.format_finite(v).parse().unwrap_or(f64::from(v))
    } else {
        f64::from(v)
    }
}

fn decimal_json(d: &Decimal) -> Value {
    let text = decimal_text(d.data(), d.scale());
    number_text(&text)
}

/// A decimal literal as JSON: a number when a double reads it back
/// exactly as written, else a `$literal` with the kind of misstatement.
pub(crate) fn number_text(text: &str) -> Value {
    match number_literal_precision(text) {
        None => match text.parse::<f64>() {
            Ok(x) => serde_json::Number::from_f64(x)
                .map_or_else(|| literal_placeholder(text, None), Value::Number),
            Err(_) => literal_placeholder(text, None),
        },
        kind => literal_placeholder(text, kind),
    }
}

/// A big-endian two's complement integer scaled by `10^-scale`, as
/// decimal text (`-12.50`). Any width: a hostile file may declare a
/// decimal wider than 16 bytes.
pub(crate) fn decimal_text(bytes: &[u8], scale: i32) -> String {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // The magnitude, big-endian: the two's complement negated.
    let mut mag: Vec<u8> = if negative {
        let mut m: Vec<u8> = bytes.iter().map(|b| !b).collect();
        for b in m.iter_mut().rev() {
            let (v, carry) = b.overflowing_add(1);
            *b = v;
            if !carry {
                break;
            }
        }
        m
    } else {
        bytes.to_vec()
    };
    // Base 256 to base 10^9, by repeated division.
    let mut groups: Vec<u32> = Vec::new();
    while mag.iter().any(|&b| b != 0) {
        let mut rem: u64 = 0;
        for b in mag.iter_mut() {
            let cur = (rem << 8) | u64::from(*b);
            *b = (cur / 1_000_000_000) as u8;
            rem = cur % 1_000_000_000;
        }
        groups.push(rem as u32);
    }
    let mut digits = match groups.split_last() {
        None => "0".to_owned(),
        Some((top, rest)) => {
            let mut s = top.to_string();
            for g in rest.iter().rev() {
                s.push_str(&format!("{g:09}"));
            }
            s
        }
    };
    if scale > 0 {
        let scale = scale as usize;
        if digits.len() <= scale {
            digits = format!("{}{digits}", "0".repeat(scale + 1 - digits.len()));
        }
        digits.insert(digits.len() - scale, '.');
    } else if scale < 0 && digits != "0" {
        digits.push_str(&"0".repeat(scale.unsigned_abs() as usize));
    }
    if negative && digits.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        digits.insert(0, '-');
    }
    digits
}

fn text_json(s: &str, cuts: &mut Cuts) -> Value {
    if s.len() <= PARQUET_VALUE_TEXT_BYTES {
        return Value::String(s.to_owned());
    }
    cuts.converted = true;
    let mut cut = PARQUET_VALUE_TEXT_BYTES;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    json!({"$truncated": &s[..cut], "bytes": s.len()})
}

pub(crate) fn bytes_json(b: &ByteArray, leaf: Leaf, cuts: &mut Cuts) -> Value {
    let data = b.data();
    match std::str::from_utf8(data) {
        Ok(s) if leaf == Leaf::Text => text_json(s, cuts),
        // Bytes the writer did not call text, that read as text (Impala
        // and Hive write strings so): readable, and still marked bytes.
        Ok(s) => match text_json(s, cuts) {
            Value::String(s) => json!({ "$bytes": s }),
            cut => json!({ "$bytes": cut }),
        },
        Err(_) => hex_json(data, cuts),
    }
}

/// Bytes as `{"$hex": "..."}`, cut to the text cap.
pub(crate) fn hex_json(data: &[u8], cuts: &mut Cuts) -> Value {
    let keep = data.len().min(PARQUET_VALUE_TEXT_BYTES / 2);
    let hex: String = data[..keep].iter().map(|b| format!("{b:02x}")).collect();
    if keep < data.len() {
        cuts.converted = true;
        return json!({"$hex": hex, "bytes": data.len()});
    }
    json!({ "$hex": hex })
}

/// Days since 1970-01-01 as an ISO date (proleptic Gregorian; a year
/// outside 0..=9999 is written with its sign and at least four digits).
pub(crate) fn date_text(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    year_text(y) + &format!("-{m:02}-{d:02}")
}

fn year_text(y: i64) -> String {
    if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:04}", y.unsigned_abs())
    } else {
        format!("+{y}")
    }
}

/// The civil date of a day count (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `ticks` of `10^-digits` seconds since the epoch as RFC 3339 text.
pub(crate) fn timestamp_json(ticks: i128, digits: u32, utc: bool) -> Value {
    let per_second = 10i128.pow(digits);
    let seconds = ticks.div_euclid(per_second);
    let fraction = ticks.rem_euclid(per_second);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let Ok(days) = i64::try_from(days) else {
        return Value::Null;
    };
    let mut s = date_text(days);
    s.push_str(&format!(
        "T{:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    ));
    if digits > 0 {
        s.push_str(&format!(".{fraction:0width$}", width = digits as usize));
    }
    if utc {
        s.push('Z');
    }
    Value::String(s)
}

/// `ticks` of `10^-digits` seconds since midnight as `HH:MM:SS.fff`.
pub(crate) fn time_json(ticks: i128, digits: u32) -> Value {
    let per_second = 10i128.pow(digits);
    let seconds = ticks.div_euclid(per_second);
    let fraction = ticks.rem_euclid(per_second);
    Value::String(format!(
        "{:02}:{:02}:{:02}.{fraction:0width$}",
        seconds.div_euclid(3600),
        seconds.rem_euclid(3600) / 60,
        seconds.rem_euclid(60),
        width = digits as usize
    ))
}

/// A physical value (from the column statistics) as JSON, read through
/// the column's logical type as a row's value would be.
pub(crate) fn int_json(v: i64, node: &Type, physical: PhysicalType) -> Value {
    match leaf_of(node) {
        Leaf::Unsigned if physical == PhysicalType::INT32 => Value::from(v as i32 as u32),
        Leaf::Unsigned => integer_text(&(v as u64).to_string()),
        Leaf::Decimal { scale } => number_text(&decimal_text(&v.to_be_bytes(), scale)),
        Leaf::TimestampMillis { utc } => timestamp_json(i128::from(v), 3, utc),
        Leaf::TimestampMicros { utc } => timestamp_json(i128::from(v), 6, utc),
        Leaf::TimestampNanos { utc } => timestamp_json(i128::from(v), 9, utc),
        Leaf::TimeNanos => time_json(i128::from(v), 9),
        _ => match node.get_basic_info().logical_type_ref() {
            Some(LogicalType::Date) => Value::String(date_text(v)),
            Some(LogicalType::Time(t)) => time_json(
                i128::from(v),
                if t.unit == TimeUnit::MILLIS { 3 } else { 6 },
            ),
            _ => match node.get_basic_info().converted_type() {
                ConvertedType::DATE => Value::String(date_text(v)),
                ConvertedType::TIME_MILLIS => time_json(i128::from(v), 3),
                ConvertedType::TIME_MICROS => time_json(i128::from(v), 6),
                _ => integer_text(&v.to_string()),
            },
        },
    }
}

/// A byte-array statistic as JSON: text for a text column, a decimal
/// for a decimal one, else hex.
pub(crate) fn bytes_stat_json(data: &[u8], node: &Type, cuts: &mut Cuts) -> Value {
    match leaf_of(node) {
        Leaf::Text => match std::str::from_utf8(data) {
            Ok(s) => text_json(s, cuts),
            Err(_) => hex_json(data, cuts),
        },
        Leaf::Decimal { scale } if !data.is_empty() => number_text(&decimal_text(data, scale)),
        _ => hex_json(data, cuts),
    }
}

/// Whether a column's byte-array values are text (compared bytewise).
pub(crate) fn is_text(node: &Type) -> bool {
    leaf_of(node) == Leaf::Text
}

/// Whether a column's integers are unsigned.
pub(crate) fn is_unsigned(node: &Type) -> bool {
    leaf_of(node) == Leaf::Unsigned
}

/// The logical type of a schema node, as short text (`decimal(10,2)`,
/// `timestamp(micros, utc)`), or `None` when it has none.
pub(crate) fn logical_text(node: &Type) -> Option<String> {
    let info = node.get_basic_info();
    let unit = |u: &TimeUnit| match u {
        TimeUnit::MILLIS => "millis",
        TimeUnit::MICROS => "micros",
        TimeUnit::NANOS => "nanos",
    };
    let zone = |utc: bool| if utc { "utc" } else { "local" };
    Some(match info.logical_type_ref()? {
        LogicalType::String => "string".into(),
        LogicalType::Map => "map".into(),
        LogicalType::List => "list".into(),
        LogicalType::Enum => "enum".into(),
        LogicalType::Decimal(d) => format!("decimal({},{})", d.precision, d.scale),
        LogicalType::Date => "date".into(),
        LogicalType::Time(t) => {
            format!("time({}, {})", unit(&t.unit), zone(t.is_adjusted_to_u_t_c))
        }
        LogicalType::Timestamp(t) => {
            format!(
                "timestamp({}, {})",
                unit(&t.unit),
                zone(t.is_adjusted_to_u_t_c)
            )
        }
        LogicalType::Integer(i) => format!(
            "integer({}, {})",
            i.bit_width,
            if i.is_signed { "signed" } else { "unsigned" }
        ),
        LogicalType::Unknown => "unknown".into(),
        LogicalType::Json => "json".into(),
        LogicalType::Bson => "bson".into(),
        LogicalType::Uuid => "uuid".into(),
        LogicalType::Float16 => "float16".into(),
        other => format!("{other:?}").to_ascii_lowercase(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_of_any_width_read_exactly() {
        assert_eq!(decimal_text(&1234i32.to_be_bytes(), 2), "12.34");
        assert_eq!(decimal_text(&(-1234i32).to_be_bytes(), 2), "-12.34");
        assert_eq!(decimal_text(&5i64.to_be_bytes(), 3), "0.005");
        assert_eq!(decimal_text(&(-5i64).to_be_bytes(), 3), "-0.005");
        assert_eq!(decimal_text(&0i64.to_be_bytes(), 2), "0.00");
        assert_eq!(decimal_text(&[], 0), "0");
        assert_eq!(decimal_text(&7i32.to_be_bytes(), -2), "700");
        assert_eq!(
            decimal_text(&i128::MAX.to_be_bytes(), 0),
            i128::MAX.to_string()
        );
        assert_eq!(
            decimal_text(&i128::MIN.to_be_bytes(), 0),
            i128::MIN.to_string()
        );
        // Wider than 16 bytes: -1 in 20 bytes, and 2^128.
        assert_eq!(decimal_text(&[0xff; 20], 1), "-0.1");
        let mut big = vec![0u8; 17];
        big[0] = 1;
        assert_eq!(
            decimal_text(&big, 0),
            "340282366920938463463374607431768211456"
        );
    }

    #[test]
    fn every_i32_and_i64_reads_back() {
        for v in [
            0i64,
            1,
            -1,
            9,
            10,
            999_999_999,
            1_000_000_000,
            i64::MAX,
            i64::MIN,
        ] {
            assert_eq!(decimal_text(&v.to_be_bytes(), 0), v.to_string());
        }
    }

    #[test]
    fn dates_and_timestamps_are_iso() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(-1), "1969-12-31");
        assert_eq!(date_text(19_723), "2024-01-01");
        assert_eq!(date_text(11_016), "2000-02-29");
        assert_eq!(date_text(-719_528), "0000-01-01");
        assert_eq!(date_text(2_932_897), "+10000-01-01");
        assert_eq!(
            timestamp_json(1_704_067_200_123, 3, true),
            json!("2024-01-01T00:00:00.123Z")
        );
        assert_eq!(
            timestamp_json(-1, 9, false),
            json!("1969-12-31T23:59:59.999999999")
        );
        assert_eq!(time_json(3_723_004, 3), json!("01:02:03.004"));
    }

    #[test]
    fn civil_dates_match_a_day_by_day_count() {
        // Walk day by day from 1600-01-01 and compare.
        let month_days = |y: i64, m: u32| match m {
            2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let (mut y, mut m, mut d) = (1600i64, 1u32, 1u32);
        let start = -135_140; // 1600-01-01
        for z in start..start + 400 * 366 {
            assert_eq!(civil_from_days(z), (y, m, d), "day {z}");
            d += 1;
            if d > month_days(y, m) {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
    }

    #[test]
    fn floats_keep_their_own_shortest_text() {
        assert_eq!(
            float_json(f64::from(0.1f32), &0.1f32.to_string()),
            json!(0.1)
        );
        assert_eq!(float_json(f64::NAN, "NaN"), json!({"$float": "NaN"}));
        assert_eq!(
            float_json(f64::NEG_INFINITY, "-inf"),
            json!({"$float": "-Infinity"})
        );
    }
}
