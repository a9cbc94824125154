//! The C# binding's declarations against the header, read as text (no C# compiler needed):
//! every function of `include/throng.h` has a `[DllImport]` in
//! `bindings/csharp/src/NativeMethods.cs` with the same name, parameter names and order, and a
//! C# type that marshals as the C type; every declaration names a function of the header; the
//! status codes, the fields of `ThrongTickEvents` and the action codes have the header's names,
//! order and values. A change of the ABI that the binding does not follow fails here.

use std::collections::BTreeMap;
use std::path::Path;

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `OUT_OF_RANGE` -> `OutOfRange`, `plans_failed` -> `PlansFailed`.
fn pascal(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let w = w.to_ascii_lowercase();
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A parameter: its type (spaces normalised, `*` kept) and name.
#[derive(Debug)]
struct Param {
    ty: String,
    name: String,
}

/// `uint32_t *width` -> (`uint32_t *`, `width`); `out GridHandle @out` -> (`out GridHandle`, `out`).
fn param(text: &str) -> Param {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = text
        .rfind([' ', '*'])
        .unwrap_or_else(|| panic!("no name in parameter `{text}`"));
    Param {
        ty: text[..=at].trim().to_string(),
        name: text[at + 1..].trim_start_matches('@').to_string(),
    }
}

fn params(list: &str) -> Vec<Param> {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Vec::new();
    }
    list.split(',').map(param).collect()
}

/// The header's functions: name -> (return type, parameters).
fn header_functions(header: &str) -> BTreeMap<String, (String, Vec<Param>)> {
    let mut functions = BTreeMap::new();
    let mut rest = header;
    while let Some(at) = rest.find("throng_") {
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let returns = before[line_start..].trim();
        let after = &rest[at..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_end];
        let is_declaration = ["ThrongStatus", "const char *", "uint32_t"].contains(&returns)
            && after[name_end..].starts_with('(');
        if is_declaration {
            let close = after.find(");").expect("a declaration ends with );");
            let list = &after[name_end + 1..close];
            functions.insert(name.to_string(), (returns.to_string(), params(list)));
            rest = &after[close..];
        } else {
            rest = &after[name_end..];
        }
    }
    functions
}

/// The C# declarations: (entry point, method name, return type, parameters).
fn csharp_functions(source: &str) -> Vec<(String, String, String, Vec<Param>)> {
    let mut out = Vec::new();
    for chunk in source.split("[DllImport(").skip(1) {
        let attribute_end = chunk.find(")]").expect("the attribute ends");
        let attribute = &chunk[..attribute_end];
        let decl = &chunk[attribute_end..];
        let start =
            decl.find("static extern ").expect("a static extern method") + "static extern ".len();
        let open = decl.find('(').expect("a parameter list");
        let close = decl.find(");").expect("a declaration ends with );");
        let mut head = decl[start..open].split_whitespace();
        let returns = head.next().expect("a return type").to_string();
        let method = head.next().expect("a name").to_string();
        let entry = attribute
            .split("EntryPoint = \"")
            .nth(1)
            .map(|s| s[..s.find('"').expect("a closing quote")].to_string())
            .unwrap_or_else(|| method.clone());
        out.push((entry, method, returns, params(&decl[open + 1..close])));
    }
    out
}

/// Whether the C# type `cs` marshals as the C type `c` (see NativeMethods.cs's header comment).
fn marshals_as(c: &str, cs: &str, is_return: bool) -> bool {
    let scalar = |c: &str| match c {
        "uint32_t" => Some("uint"),
        "int32_t" => Some("int"),
        "uint64_t" => Some("ulong"),
        "uint8_t" => Some("byte"),
        "uint16_t" => Some("ushort"),
        "size_t" => Some("UIntPtr"),
        "double" => Some("double"),
        "float" => Some("float"),
        "ThrongStatus" => Some("Status"),
        "struct ThrongTickEvents" => Some("TickEvents"),
        "struct ThrongEvent" => Some("AgentEvent"),
        _ => None,
    };
    let handle = |c: &str| match c.trim_start_matches("const ") {
        "struct ThrongGrid" => Some("GridHandle"),
        "struct ThrongNav" => Some("NavHandle"),
        "struct ThrongSim" => Some("SimHandle"),
        _ => None,
    };
    if let Some(s) = scalar(c) {
        return cs == s;
    }
    if c == "const char *" {
        return cs == if is_return { "IntPtr" } else { "byte[]" };
    }
    if c == "char *" {
        return cs == "byte[]";
    }
    if let Some(pointee) = c.strip_suffix(" **") {
        return handle(pointee).is_some_and(|h| cs == format!("out {h}"));
    }
    if let Some(pointee) = c.strip_suffix(" *") {
        if let Some(h) = handle(pointee) {
            return cs == h || cs == "IntPtr";
        }
        // An array (IntPtr to a pinned array) or one value written (out T).
        if let Some(s) = scalar(pointee.trim_start_matches("const ")) {
            return cs == "IntPtr" || (!pointee.starts_with("const ") && cs == format!("out {s}"));
        }
    }
    false
}

#[test]
fn every_function_of_the_header_is_declared_as_in_the_header() {
    let header = header_functions(&read("include/throng.h"));
    let csharp = csharp_functions(&read("../bindings/csharp/src/NativeMethods.cs"));
    assert!(header.len() >= 30, "the header's functions: {header:?}");
    let mut declared = std::collections::BTreeSet::new();
    for (entry, method, returns, cs_params) in &csharp {
        let (c_returns, c_params) = header
            .get(entry)
            .unwrap_or_else(|| panic!("{method} names {entry}, which the header does not have"));
        assert!(
            marshals_as(c_returns, returns, true),
            "{method} returns {returns}, the header {c_returns}"
        );
        assert_eq!(
            cs_params.iter().map(|p| &p.name).collect::<Vec<_>>(),
            c_params.iter().map(|p| &p.name).collect::<Vec<_>>(),
            "{method}: the parameters' names and order"
        );
        for (cs, c) in cs_params.iter().zip(c_params) {
            assert!(
                marshals_as(&c.ty, &cs.ty, false),
                "{method}: parameter {} is {} in C#, {} in the header",
                c.name,
                cs.ty,
                c.ty
            );
        }
        declared.insert(entry.clone());
    }
    let missing: Vec<_> = header.keys().filter(|f| !declared.contains(*f)).collect();
    assert!(missing.is_empty(), "not declared in C#: {missing:?}");
}

/// `NAME = value` lines of a C or C# enum body, in order.
fn enum_values(body: &str, prefix: &str) -> Vec<(String, i64)> {
    body.lines()
        .filter_map(|line| {
            let line = line.trim().trim_end_matches(',');
            let (name, value) = line.split_once(" = ")?;
            let name = name.trim().strip_prefix(prefix)?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` not found"))
        + start.len();
    let to = text[from..].find(end).expect("the end") + from;
    &text[from..to]
}

#[test]
fn status_codes_events_and_actions_match_the_header() {
    let header = read("include/throng.h");
    let status = read("../bindings/csharp/src/Status.cs");
    let c_codes: Vec<_> = enum_values(
        between(&header, "enum ThrongStatus", "};"),
        "THRONG_STATUS_",
    )
    .into_iter()
    .map(|(n, v)| (pascal(&n), v))
    .collect();
    assert_eq!(c_codes.len(), 13);
    assert_eq!(
        enum_values(between(&status, "enum Status", "}\n}"), ""),
        c_codes
    );

    // The structs: the same fields, types and order (they are read as laid out in memory).
    let reads = read("../bindings/csharp/src/SimulationReads.cs");
    for (c_struct, cs_source, cs_struct) in [
        (
            "ThrongTickEvents",
            read("../bindings/csharp/src/TickEvents.cs"),
            "struct TickEvents",
        ),
        ("ThrongEvent", reads.clone(), "struct AgentEvent"),
    ] {
        let c_fields: Vec<(String, String)> =
            between(&header, &format!("typedef struct {c_struct} {{"), "}")
                .lines()
                .filter_map(|l| l.trim().strip_suffix(';'))
                .map(|l| {
                    let p = param(l);
                    (pascal(&p.name), p.ty)
                })
                .collect();
        let cs_fields: Vec<(String, String)> = between(&cs_source, cs_struct, "\n    }")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("public ")?.strip_suffix(';'))
            .map(|l| {
                let p = param(l);
                (p.name, p.ty)
            })
            .collect();
        assert_eq!(
            cs_fields.len(),
            c_fields.len(),
            "{c_struct}: {cs_fields:?} vs {c_fields:?}"
        );
        for ((cs_name, cs_ty), (c_name, c_ty)) in cs_fields.iter().zip(&c_fields) {
            assert_eq!(cs_name, c_name);
            let cs_ty = if cs_ty == "EventKind" { "byte" } else { cs_ty };
            assert!(
                marshals_as(c_ty, cs_ty, false),
                "{c_struct}.{cs_name}: {cs_ty} vs {c_ty}"
            );
        }
    }

    // Event kinds and plan reasons.
    let defines = |prefix: &str| -> Vec<(String, i64)> {
        header
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .filter_map(|l| {
                let (name, value) = l.split_once(' ')?;
                Some((pascal(name), value.trim().parse::<i64>().ok()?))
            })
            .collect()
    };
    let kinds = defines("#define THRONG_EVENT_");
    assert_eq!(kinds.len(), 9);
    assert_eq!(
        enum_values(between(&reads, "enum EventKind : byte", "}"), ""),
        kinds
    );
    let reasons = defines("#define THRONG_PLAN_REASON_");
    assert_eq!(reasons.len(), 4);
    assert_eq!(
        enum_values(between(&reads, "enum PlanReason : byte", "}"), ""),
        reasons
    );

    // Action codes and the special values.
    let agents = read("../bindings/csharp/src/Agents.cs");
    let c_actions: Vec<_> = header
        .lines()
        .filter_map(|l| l.strip_prefix("#define THRONG_ACTION_"))
        .map(|l| {
            let (name, value) = l.split_once(' ').expect("a value");
            (pascal(name), value.trim().parse::<i64>().expect("a number"))
        })
        .collect();
    assert_eq!(c_actions.len(), 9);
    assert_eq!(
        enum_values(between(&agents, "enum AgentAction : int", "}"), ""),
        c_actions
    );
    let engine = read("../bindings/csharp/src/Engine.cs");
    assert!(header.contains("#define THRONG_NO_GOAL UINT32_MAX"));
    assert!(engine.contains("public const uint NoGoal = uint.MaxValue;"));
    assert!(header.contains("#define THRONG_NO_CELL UINT32_MAX"));
    assert!(engine.contains("public const uint NoCell = uint.MaxValue;"));
    assert!(header.contains("#define THRONG_NO_AGENT UINT64_MAX"));
    assert!(engine.contains("public const ulong NoAgent = ulong.MaxValue;"));
    let abi = header
        .lines()
        .find_map(|l| l.strip_prefix("#define THRONG_ABI_VERSION "))
        .expect("THRONG_ABI_VERSION");
    assert!(engine.contains(&format!("public const uint AbiVersion = {abi};")));
    assert!(header.contains("#define THRONG_NO_PATH -1.0"));
    assert!(engine.contains("public const double NoPath = -1.0;"));
}
