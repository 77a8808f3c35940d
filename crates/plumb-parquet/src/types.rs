//! The types a person reads a Parquet column by: `string`, `date`,
//! `timestamp[us]`, `decimal(10,2)`, `list<string>`, `struct<…>`, from
//! the logical annotation, the legacy converted type of older writers,
//! and the physical type underneath, for each column a user defined
//! (the schema's top-level fields) and each leaf beneath it.
//!
//! Written here: the parquet crate prints its own schema syntax, not
//! the names the Arrow world reads types by.

use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as PhysicalType};
use parquet::schema::types::{ColumnDescriptor, Type};
use serde::Serialize;

/// The deepest nesting a type's text describes; a level below it is
/// written `…`.
pub const PARQUET_TYPE_DEPTH_MAX: usize = 16;

/// The longest a type's text gets (a struct of many fields), cut with
/// `…` past it.
pub const PARQUET_TYPE_TEXT_BYTES: usize = 256;

/// A column as its user defined it: a top-level field of the schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FieldType {
    /// Its name.
    pub name: String,
    /// Its type (`list<string>`, `struct<x: double, y: double>`).
    #[serde(rename = "type")]
    pub kind: String,
    /// How many leaf columns it holds (in `columns`, in order).
    pub leaves: usize,
}

/// The type of one leaf column, as its values read.
pub(crate) fn leaf_type(descr: &ColumnDescriptor) -> String {
    primitive(
        descr.self_type(),
        descr.type_precision(),
        descr.type_scale(),
    )
}

/// The first `max` top-level fields of `root`, each with its type and
/// leaf count.
pub(crate) fn field_types(root: &Type, max: usize) -> Vec<FieldType> {
    root.get_fields()
        .iter()
        .take(max)
        .map(|f| {
            let mut kind = describe(f, 0, true);
            if kind.len() > PARQUET_TYPE_TEXT_BYTES {
                let mut at = PARQUET_TYPE_TEXT_BYTES;
                while !kind.is_char_boundary(at) {
                    at -= 1;
                }
                kind.truncate(at);
                kind.push('…');
            }
            FieldType {
                name: f.name().to_owned(),
                kind,
                leaves: leaves(f),
            }
        })
        .collect()
}

/// Leaf columns under `t`, counted with an explicit stack.
fn leaves(t: &Type) -> usize {
    let mut n = 0;
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if t.is_primitive() {
            n += 1;
        } else {
            stack.extend(t.get_fields().iter().map(|f| f.as_ref()));
        }
    }
    n
}

/// The type text of `t`, at most [`PARQUET_TYPE_DEPTH_MAX`] levels deep
/// (the recursion is bounded by that constant, not by the file). A
/// repeated field is a list of itself (`wrap`), unless it is the
/// repeated level of a list annotation, already written as the list.
fn describe(t: &Type, depth: usize, wrap: bool) -> String {
    if depth >= PARQUET_TYPE_DEPTH_MAX {
        return "…".to_owned();
    }
    let info = t.get_basic_info();
    let repeated = info.has_repetition() && info.repetition() == Repetition::REPEATED;
    let inner = if t.is_primitive() {
        let (precision, scale) = match t {
            Type::PrimitiveType {
                precision, scale, ..
            } => (*precision, *scale),
            Type::GroupType { .. } => (0, 0),
        };
        primitive(t, precision, scale)
    } else {
        group(t, depth)
    };
    if repeated && wrap {
        format!("list<{inner}>")
    } else {
        inner
    }
}

fn group(t: &Type, depth: usize) -> String {
    let info = t.get_basic_info();
    let fields = t.get_fields();
    let logical = info.logical_type_ref();
    let converted = info.converted_type();
    let is_list = matches!(logical, Some(LogicalType::List)) || converted == ConvertedType::LIST;
    let is_map = matches!(logical, Some(LogicalType::Map))
        || converted == ConvertedType::MAP
        || converted == ConvertedType::MAP_KEY_VALUE;
    if is_list && fields.len() == 1 {
        let repeated = &fields[0];
        // Three levels: list → repeated group of one element; two
        // levels: the repeated field is the element.
        let element = match repeated.as_ref() {
            Type::GroupType { fields, .. } if fields.len() == 1 && repeated.name() != "array" => {
                fields[0].as_ref()
            }
            other => other,
        };
        return format!("list<{}>", describe(element, depth + 1, false));
    }
    if is_map && fields.len() == 1 && !fields[0].is_primitive() {
        let kv = fields[0].get_fields();
        if let [k, v] = kv {
            return format!(
                "map<{}, {}>",
                describe(k, depth + 1, true),
                describe(v, depth + 1, true)
            );
        }
    }
    let members: Vec<String> = fields
        .iter()
        .map(|f| format!("{}: {}", f.name(), describe(f, depth + 1, true)))
        .collect();
    format!("struct<{}>", members.join(", "))
}

fn unit(u: &TimeUnit) -> &'static str {
    match u {
        TimeUnit::MILLIS => "ms",
        TimeUnit::MICROS => "us",
        TimeUnit::NANOS => "ns",
    }
}

/// A primitive's type: its logical annotation, else its converted type,
/// else its physical type.
fn primitive(t: &Type, precision: i32, scale: i32) -> String {
    let info = t.get_basic_info();
    if let Some(l) = info.logical_type_ref() {
        return match l {
            LogicalType::String | LogicalType::Enum => "string".into(),
            LogicalType::Json => "json".into(),
            LogicalType::Bson => "bson".into(),
            LogicalType::Uuid => "uuid".into(),
            LogicalType::Float16 => "float16".into(),
            LogicalType::Date => "date".into(),
            LogicalType::Decimal(d) => format!("decimal({},{})", d.precision, d.scale),
            LogicalType::Time(x) => format!("time[{}]", unit(&x.unit)),
            LogicalType::Timestamp(x) if x.is_adjusted_to_u_t_c => {
                format!("timestamp[{}, utc]", unit(&x.unit))
            }
            LogicalType::Timestamp(x) => format!("timestamp[{}]", unit(&x.unit)),
            LogicalType::Integer(i) => {
                format!("{}int{}", if i.is_signed { "" } else { "u" }, i.bit_width)
            }
            LogicalType::Unknown => "null".into(),
            other => format!("{other:?}").to_ascii_lowercase(),
        };
    }
    let physical = match t {
        Type::PrimitiveType { physical_type, .. } => *physical_type,
        Type::GroupType { .. } => return "struct<>".into(),
    };
    match info.converted_type() {
        ConvertedType::UTF8 | ConvertedType::ENUM => return "string".into(),
        ConvertedType::JSON => return "json".into(),
        ConvertedType::BSON => return "bson".into(),
        ConvertedType::DATE => return "date".into(),
        ConvertedType::DECIMAL => return format!("decimal({precision},{scale})"),
        ConvertedType::TIME_MILLIS => return "time[ms]".into(),
        ConvertedType::TIME_MICROS => return "time[us]".into(),
        ConvertedType::TIMESTAMP_MILLIS => return "timestamp[ms]".into(),
        ConvertedType::TIMESTAMP_MICROS => return "timestamp[us]".into(),
        ConvertedType::INT_8 => return "int8".into(),
        ConvertedType::INT_16 => return "int16".into(),
        ConvertedType::INT_32 => return "int32".into(),
        ConvertedType::INT_64 => return "int64".into(),
        ConvertedType::UINT_8 => return "uint8".into(),
        ConvertedType::UINT_16 => return "uint16".into(),
        ConvertedType::UINT_32 => return "uint32".into(),
        ConvertedType::UINT_64 => return "uint64".into(),
        _ => {}
    }
    match physical {
        PhysicalType::BOOLEAN => "boolean".into(),
        PhysicalType::INT32 => "int32".into(),
        PhysicalType::INT64 => "int64".into(),
        PhysicalType::INT96 => "int96".into(),
        PhysicalType::FLOAT => "float".into(),
        PhysicalType::DOUBLE => "double".into(),
        PhysicalType::BYTE_ARRAY => "binary".into(),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => match t {
            Type::PrimitiveType { type_length, .. } => format!("fixed_size_binary[{type_length}]"),
            Type::GroupType { .. } => "fixed_size_binary".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parquet::schema::parser::parse_message_type;
    use parquet::schema::types::SchemaDescriptor;

    use super::*;

    fn types(message: &str) -> (Vec<(String, String, usize)>, Vec<String>) {
        let root = Arc::new(parse_message_type(message).expect("a schema"));
        let fields = field_types(&root, usize::MAX)
            .into_iter()
            .map(|f| (f.name, f.kind, f.leaves))
            .collect();
        let descr = SchemaDescriptor::new(root);
        let leaves = (0..descr.num_columns())
            .map(|i| leaf_type(&descr.column(i)))
            .collect();
        (fields, leaves)
    }

    #[test]
    fn the_types_people_read_columns_by() {
        let (fields, leaves) = types(
            "message m {
                required int64 id;
                optional binary name (STRING);
                optional binary blob;
                optional int32 day (DATE);
                optional int64 ts (TIMESTAMP(MICROS,false));
                optional int64 at (TIMESTAMP(MILLIS,true));
                optional int64 price (DECIMAL(10,2));
                optional fixed_len_byte_array(16) id16;
                optional group tags (LIST) { repeated group list { optional binary element (UTF8); } }
                optional group legacy (LIST) { repeated int32 array; }
                optional group props (MAP) { repeated group key_value { required binary key (UTF8); optional double value; } }
                optional group point { required double x; required double y; }
                repeated int32 counts;
                optional int32 small (INT_16);
            }",
        );
        let want = [
            ("id", "int64", 1),
            ("name", "string", 1),
            ("blob", "binary", 1),
            ("day", "date", 1),
            ("ts", "timestamp[us]", 1),
            ("at", "timestamp[ms, utc]", 1),
            ("price", "decimal(10,2)", 1),
            ("id16", "fixed_size_binary[16]", 1),
            ("tags", "list<string>", 1),
            ("legacy", "list<int32>", 1),
            ("props", "map<string, double>", 2),
            ("point", "struct<x: double, y: double>", 2),
            ("counts", "list<int32>", 1),
            ("small", "int16", 1),
        ];
        let got: Vec<(&str, &str, usize)> = fields
            .iter()
            .map(|(n, t, l)| (n.as_str(), t.as_str(), *l))
            .collect();
        assert_eq!(got, want);
        assert_eq!(leaves.len(), 16);
        assert_eq!(
            leaves[8], "string",
            "a list's element reads as its own type"
        );
        assert_eq!(&leaves[10..12], ["string", "double"]);
    }

    #[test]
    fn a_deep_schema_is_described_to_a_bounded_depth() {
        let mut message = String::from("message m { ");
        for i in 0..(PARQUET_TYPE_DEPTH_MAX * 3) {
            message.push_str(&format!("optional group g{i} {{ "));
        }
        message.push_str("optional int32 leaf; ");
        message.push_str(&"} ".repeat(PARQUET_TYPE_DEPTH_MAX * 3));
        message.push('}');
        let (fields, leaves) = types(&message);
        assert_eq!(fields.len(), 1);
        assert!(fields[0].1.contains('…'), "{}", fields[0].1);
        assert!(fields[0].1.len() <= PARQUET_TYPE_TEXT_BYTES + '…'.len_utf8());
        assert_eq!(leaves, ["int32"]);
    }
}
