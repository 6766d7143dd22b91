//! The generated Rust modules compile (as modules of this test, clippy-clean under the
//! workspace's `-D warnings`), their types are the narrow ones, and the functions work against
//! devices through the project's device client: the scripted fake device
//! (`tests/clients/fake_device.rs`) and the qemu-sensors firmware under QEMU, in both eras.

#[allow(dead_code)]
#[path = "../codegen/golden/qemu_sensors_2025_11_25.rs"]
mod sensors;

#[allow(dead_code)]
#[path = "../codegen/golden/qemu_conformance_2025_11_25.rs"]
mod conformance;

#[allow(dead_code)]
#[path = "../codegen/golden/features.rs"]
mod features;

#[test]
fn generated_types_are_narrow() {
    // Each assignment below only compiles with the narrow type the schema implies.
    let input = sensors::SetLedInput {
        led: sensors::SetLedInputLed::Green,
        brightness: 100u8,
    };
    assert_eq!(
        serde_json::to_string(&input).unwrap(),
        r#"{"led":"green","brightness":100}"#
    );
    let acceleration: [f64; 3] = serde_json::from_str("[0.5, -1, 9.81]").unwrap();
    let _: fn(
        &mut embedded_mcp_std::device::client::Client,
        &sensors::ReadAccelerationInput,
    ) -> Result<[f64; 3], sensors::CallError> = sensors::read_acceleration;
    assert_eq!(acceleration[2], 9.81);
    let uptime: sensors::DeviceInfoOutput = serde_json::from_value(serde_json::json!({
        "firmware": "f", "version": "v", "board": "b", "uptimeMs": u64::MAX, "calls": 1,
        "rxFreeBytes": 0, "inputBufferBytes": 1, "outputBufferBytes": 1, "stackPeakBytes": 0,
        "stackSizeBytes": 1}))
    .unwrap();
    let exact: u64 = uptime.uptime_ms;
    assert_eq!(exact, u64::MAX);
    // A read without arguments sends `{}`; the default is the device's.
    assert_eq!(
        serde_json::to_string(&sensors::ReadTemperatureInput::default()).unwrap(),
        "{}"
    );
}

#[test]
fn hostile_names_and_schema_features_map_as_documented() {
    let steps = vec![features::RunSequenceInputStepsItem::Wait(
        features::RunSequenceInputStepsItemWait {
            kind: features::RunSequenceInputStepsItemWaitKind::Wait,
            ms: 10,
        },
    )];
    let input = features::RunSequenceInput {
        steps,
        ramp_ms: Some(250),
        ramp_ms_2: None,
        label: None,
        mode: Some(features::RunSequenceInputMode::Safe),
        r#class: None,
        a_b: Some(true),
    };
    assert_eq!(
        serde_json::to_string(&input).unwrap(),
        r#"{"steps":[{"kind":"wait","ms":10}],"a b":true,"mode":"safe","rampMs":250}"#
    );
    // The discriminating `const` picks the variant.
    let led: features::RunSequenceInputStepsItem =
        serde_json::from_str(r#"{"kind":"led","led":"red","on":true}"#).unwrap();
    assert!(matches!(led, features::RunSequenceInputStepsItem::Led(_)));
    // Recursive `$ref`: a boxed parent, a list of children.
    let scan: features::Tool3dScanOutput = serde_json::from_str(
        r#"{"root":{"name":"a","children":[{"name":"b"}],"parent":{"name":"p"}},"points":[[1,2,3]]}"#,
    )
    .unwrap();
    assert_eq!(scan.root.children.as_ref().unwrap()[0].name, "b");
    assert_eq!(scan.root.parent.as_ref().unwrap().name, "p");
    // Two tools whose names map to one identifier get distinct functions.
    type Client = embedded_mcp_std::device::client::Client;
    let _: fn(&mut Client, &_) -> Result<Option<f64>, _> = features::bench_read_temperature;
    let _: fn(&mut Client, &_) -> Result<Vec<serde_json::Value>, _> =
        features::bench_read_temperature_2;
}

#[allow(dead_code)]
#[path = "../codegen/golden/fake_device.rs"]
mod fake;

/// A session with the scripted fake device (a child process) at `protocol`.
fn fake_device(protocol: &str) -> embedded_mcp_std::device::client::Client {
    use embedded_mcp_std::device::client::{Client, ClientOptions};
    use embedded_mcp_std::device::{Endpoint, Logger};
    let endpoint = Endpoint::Command(vec![env!("CARGO_BIN_EXE_bridge-fake-device").into()]);
    let options = ClientOptions {
        protocol: protocol.into(),
        timeout: std::time::Duration::from_secs(10),
        ..ClientOptions::default()
    };
    Client::connect(&endpoint, options, Logger::stderr(0, "codegen-test")).expect("connect")
}

/// The generated functions against a device, in both eras: typed values, `ToolError`, and
/// results that break their schema refused with the field and the rule.
#[test]
fn generated_functions_call_the_fake_device() {
    for protocol in ["2025-11-25", "2026-07-28"] {
        let mut device = fake_device(protocol);
        let reading = fake::read_temp(&mut device, &fake::ReadTempInput {}).expect("read_temp");
        assert_eq!(
            (reading.celsius, reading.sensor.as_str()),
            (21.5, "t0"),
            "{protocol}"
        );
        let echo = fake::echo(
            &mut device,
            &fake::EchoInput {
                n: Some(7),
                s: Some("x".into()),
            },
        )
        .expect("echo");
        assert_eq!(
            echo,
            fake::EchoOutput {
                n: Some(7),
                s: Some("x".into())
            }
        );
        match fake::tool_error(&mut device, &fake::ToolErrorInput {}) {
            Err(fake::CallError::Tool(e)) => assert_eq!(e.text, "sensor t0 not responding"),
            other => panic!("{protocol}: tool_error gave {other:?}"),
        }
        let refused = |result: Result<fake::BadTempOutput, fake::CallError>| match result {
            Err(fake::CallError::Output { field, rule, .. }) => (field, rule),
            other => panic!("{protocol}: expected an invalid result, got {other:?}"),
        };
        let bad = refused(fake::bad_temp(&mut device, &fake::BadTempInput {}));
        assert_eq!(bad, ("/celsius".to_owned(), "maximum".to_owned()));
        let wrong = fake::wrong_type(&mut device, &fake::WrongTypeInput {});
        match wrong {
            Err(fake::CallError::Output { field, rule, .. }) => {
                assert_eq!((field.as_str(), rule.as_str()), ("/celsius", "type"))
            }
            other => panic!("{protocol}: wrong_type gave {other:?}"),
        }
        let missing = fake::no_structured(&mut device, &fake::NoStructuredInput {});
        assert!(
            matches!(&missing, Err(fake::CallError::Output { rule, .. }) if rule == "structuredContent"),
            "{missing:?}"
        );
        // A tool without outputSchema returns its content blocks.
        let blocks = fake::garbage(&mut device, &fake::GarbageInput {}).expect("garbage");
        assert_eq!(
            blocks,
            [serde_json::json!({"type": "text", "text": "after garbage"})]
        );
        device.close();
    }
}

/// The qemu-sensors firmware ELF, built once per test run (QEMU installed if missing).
fn sensors_firmware() -> std::path::PathBuf {
    use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
    ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
    let dir = embedded_mcp_tests::project_root().join("examples/qemu-sensors");
    build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
}

/// The generated sensor functions against the firmware under QEMU, through the project's client,
/// in both eras: typed values (the accelerometer's legacy `{"result": [...]}` unwrapped into a
/// `[f64; 3]`), and arguments the device refuses as `CallError::Tool`.
#[test]
fn generated_functions_call_qemu_sensors_in_both_eras() {
    use embedded_mcp_std::device::client::{Client, ClientOptions};
    use embedded_mcp_std::device::{Endpoint, Logger, QemuConfig};
    let elf = sensors_firmware();
    for protocol in ["2025-11-25", "2026-07-28"] {
        let options = ClientOptions {
            protocol: protocol.into(),
            ..ClientOptions::default()
        };
        let endpoint = Endpoint::Qemu(QemuConfig::new(&elf));
        let mut device = Client::connect(&endpoint, options, Logger::stderr(0, "codegen-test"))
            .expect("connect to QEMU");
        let input = sensors::ReadTemperatureInput { sensor: Some(1) };
        let t = sensors::read_temperature(&mut device, &input).expect("read_temperature");
        assert_eq!(
            t.sensor_id,
            sensors::ReadTemperatureOutputSensorId::TmpAmbient
        );
        assert_eq!(t.unit, sensors::ReadTemperatureOutputUnit::C);
        assert!((-40.0..=125.0).contains(&t.value), "{t:?}");
        let axes: [f64; 3] =
            sensors::read_acceleration(&mut device, &sensors::ReadAccelerationInput {})
                .expect("read_acceleration");
        assert!(axes.iter().all(|a| (-40.0..=40.0).contains(a)), "{axes:?}");
        let input = sensors::SetLedInput {
            led: sensors::SetLedInputLed::Blue,
            brightness: 30,
        };
        let led = sensors::set_led(&mut device, &input).expect("set_led");
        assert_eq!(
            (led.led, led.brightness, led.previous),
            (sensors::SetLedInputLed::Blue, 30, 0)
        );
        let too_bright = sensors::SetLedInput {
            led: sensors::SetLedInputLed::Blue,
            brightness: 101,
        };
        match sensors::set_led(&mut device, &too_bright) {
            Err(sensors::CallError::Tool(e)) => assert!(e.text.contains("maximum"), "{}", e.text),
            other => panic!("{protocol}: brightness 101 gave {other:?}"),
        }
        let info =
            sensors::device_info(&mut device, &sensors::DeviceInfoInput {}).expect("device_info");
        assert!(
            info.calls >= 1 && info.firmware == "qemu-sensors",
            "{info:?}"
        );
        device.close();
    }
}
