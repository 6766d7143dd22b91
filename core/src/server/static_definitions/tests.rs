//! The compile-time checks agree with the run-time ones wherever they answer.

use super::*;
use crate::schema::Program;
use crate::server::definitions::check_definitions;
use crate::server::typed::NO_ARGUMENTS_PROGRAM;
use crate::server::{Icon, ServerInfo};

const INFO: ServerInfo = ServerInfo::new("t", "1");

/// The run-time verdict of `Server::with_programs` (without building a server).
fn run_time<const N: usize>(
    tools: &[Tool; N],
    programs: &[ToolSchemas<'_>; N],
) -> Result<[bool; N], DefinitionError> {
    let object_output = check_definitions(&INFO, tools)?;
    for (tool, (t, p)) in tools.iter().zip(programs).enumerate() {
        if t.output_schema.is_some() != p.output.is_some() {
            return Err(DefinitionError::ProgramMismatch { tool });
        }
    }
    Ok(object_output)
}

fn programs_for<const N: usize>(tools: &[Tool; N]) -> [ToolSchemas<'static>; N] {
    core::array::from_fn(|i| ToolSchemas {
        input: NO_ARGUMENTS_PROGRAM,
        output: tools[i]
            .output_schema
            .map(|_| Program::from_static_parts(&[], &[], "")),
    })
}

/// Asserts agreement and returns whether `check` answered.
fn agrees<const N: usize>(tools: &[Tool; N], programs: &[ToolSchemas<'_>; N]) -> bool {
    let expected = run_time(tools, programs);
    match check(tools, programs) {
        Some(got) => {
            assert_eq!(got, expected, "{:?}", tools.map(|t| t.name));
            true
        }
        None => false,
    }
}

const OBJECT: &str = r#"{"type":"object","properties":{"a":{"type":"integer","minimum":-1.5e3}},"required":["a"],"additionalProperties":false}"#;

/// Schema texts with the answer expected from `check`: `true` when it must decide.
const SCHEMAS: &[(&str, bool)] = &[
    (OBJECT, true),
    (r#"{}"#, true),
    (r#"{"type":"array","items":{"type":"number"}}"#, true),
    (
        r#"{"description":"say \"hi\"\\n\u00e9","type":"object"}"#,
        true,
    ),
    (
        r#"{"properties":{"type":{"type":"string"}},"type":"object"}"#,
        true,
    ),
    (r#"{"type":["object","null"]}"#, true),
    (r#"{"type":"objects"}"#, true),
    (r#"{"type":"obj"}"#, true),
    (r#"{"type":"Object"}"#, true),
    (r#"{"types":"object"}"#, true),
    (
        r#"{"enum":[true,false,null,0,-0.5,1E+2,"x"],"type":"object"}"#,
        true,
    ),
    (r#"[1,2]"#, true),
    (r#""object""#, true),
    (r#"12"#, true),
    // Not sure: whitespace, surrogate escapes, duplicate `type`, bad JSON of any kind.
    (r#"{ "type": "object" }"#, false),
    (r#"{"type":"obj\u0065ct"}"#, false),
    (r#"{"type":"\u0061rray"}"#, false),
    (r#"{"type":"object","x":"\ud83d\ude00"}"#, false),
    (r#"{"type":"object","type":"array"}"#, false),
    (r#"{"type":"object""#, false),
    (r#"{"type":"object"}x"#, false),
    (r#"{"type":"object",}"#, false),
    (r#"{"a":01}"#, false),
    (r#"{"a":1.}"#, false),
    (r#"{"a":1e}"#, false),
    (r#"{"a":"\x"}"#, false),
    (r#"{"a":tru}"#, false),
    (r#"{"a":[1,]}"#, false),
    (r#""#, false),
    (r#"nul"#, false),
];

#[test]
fn every_schema_text_gets_the_run_time_verdict() {
    for &(schema, decides) in SCHEMAS {
        // As an input schema and as an output schema.
        let as_input = [Tool::new("a", schema)];
        let as_output = [Tool::new("a", OBJECT).output_schema(schema)];
        for tools in [as_input, as_output] {
            let answered = agrees(&tools, &programs_for(&tools));
            assert_eq!(answered, decides, "{schema}");
        }
    }
}

#[test]
fn deep_nesting_is_left_to_run_time() {
    let mut deep = std::string::String::from(r#"{"type":"object","a":"#);
    let levels = MAX_NESTING + 1;
    deep.extend(core::iter::repeat_n('[', levels));
    deep.extend(core::iter::repeat_n(']', levels));
    deep.push('}');
    let text: &'static str = std::boxed::Box::leak(deep.into_boxed_str());
    let tools = [Tool::new("a", text)];
    assert!(!agrees(&tools, &programs_for(&tools)));
    assert!(run_time(&tools, &programs_for(&tools)).is_ok());
}

#[test]
fn names_icons_meta_and_programs_get_the_run_time_verdict() {
    static ICON: [Icon; 1] = [Icon::new("http://example.com/i.png")];
    let cases: [[Tool; 3]; 6] = [
        [
            Tool::new("a", OBJECT),
            Tool::new("b", OBJECT).output_schema(r#"{"type":"array"}"#),
            Tool::new("c", OBJECT).output_schema(OBJECT),
        ],
        [
            Tool::new("a", OBJECT),
            Tool::new("b", OBJECT),
            Tool::new("a", OBJECT),
        ],
        [
            Tool::new("a", OBJECT),
            Tool::new("b c", OBJECT),
            Tool::new("a", OBJECT),
        ],
        [
            Tool::new("a", OBJECT),
            Tool::new("b", OBJECT).icons(&ICON),
            Tool::new("c", r#"{"type":"array"}"#),
        ],
        [
            Tool::new("a", OBJECT),
            Tool::new("b", r#"{"type":"string"}"#),
            Tool::new("c", OBJECT).output_schema("[]"),
        ],
        [
            Tool::new("a", OBJECT),
            Tool::new("b", OBJECT).output_schema("3"),
            Tool::new("c", OBJECT),
        ],
    ];
    for tools in &cases {
        assert!(agrees(tools, &programs_for(tools)));
    }
    // An output program without an `outputSchema`, or the reverse.
    let tools = [
        Tool::new("a", OBJECT),
        Tool::new("b", OBJECT).output_schema(OBJECT),
    ];
    let mut programs = programs_for(&tools);
    programs.swap(0, 1);
    assert!(agrees(&tools, &programs));
    assert_eq!(
        check(&tools, &programs),
        Some(Err(DefinitionError::ProgramMismatch { tool: 0 }))
    );
    // `_meta` needs the full parser: left to run time.
    let tools = [Tool::new("a", OBJECT).meta(r#"{"k":1}"#)];
    assert!(!agrees(&tools, &programs_for(&tools)));
}

#[test]
fn a_typed_toolbox_is_checked_while_compiling() {
    const TOOLS: [Tool; 2] = [
        Tool::new("read", OBJECT).output_schema(OBJECT),
        Tool::new("list", OBJECT).output_schema(r#"{"type":"array"}"#),
    ];
    const PROGRAMS: [ToolSchemas<'static>; 2] = [
        ToolSchemas {
            input: NO_ARGUMENTS_PROGRAM,
            output: Some(NO_ARGUMENTS_PROGRAM),
        },
        ToolSchemas {
            input: NO_ARGUMENTS_PROGRAM,
            output: Some(NO_ARGUMENTS_PROGRAM),
        },
    ];
    const CHECKED: Option<Result<[bool; 2], DefinitionError>> = check(&TOOLS, &PROGRAMS);
    assert_eq!(CHECKED, Some(Ok([true, false])));
}
