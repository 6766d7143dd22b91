use super::*;

fn request(name: &str, source: Source) -> Request {
    Request {
        name: name.to_owned(),
        board: Board::QemuM3,
        source,
        approval: false,
    }
}

#[test]
fn names_and_boards_are_checked() {
    for bad in ["", "1abc", "a b", "a/b", "é", &"a".repeat(65)] {
        let err = files(&request(bad, Source::this_version())).unwrap_err();
        assert!(matches!(err, ScaffoldError::InvalidName(_)), "{bad}");
    }
    assert!(files(&request(&"a".repeat(64), Source::this_version())).is_ok());
    assert_eq!(Board::from_name("qemu-m3").unwrap(), Board::QemuM3);
    assert_eq!(
        Board::from_name("qemu-m4").unwrap_err().to_string(),
        "unknown board `qemu-m4` (boards: qemu-m3, qemu-riscv, rp2040, esp32c3)"
    );
    let quoted = Source::Checkout(PathBuf::from("/tmp/a\"b"));
    assert!(matches!(
        files(&request("soil", quoted)).unwrap_err(),
        ScaffoldError::UnusablePath(_)
    ));
}

#[test]
fn the_crate_names_itself_and_its_dependencies() {
    let made = files(&request(
        "soil",
        Source::Checkout(PathBuf::from("/src/emcp/")),
    ))
    .unwrap();
    let paths: Vec<&str> = made.iter().map(|f| f.path.to_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "Cargo.toml",
            ".cargo/config.toml",
            ".gitignore",
            "src/main.rs",
            "src/tools.rs",
            "README.md"
        ]
    );
    let cargo = &made[0].text;
    assert!(cargo.starts_with("[package]\nname = \"soil\"\n"), "{cargo}");
    assert!(cargo.contains(
        "embedded-mcp = { path = \"/src/emcp/core\", features = [\"compact-float\"] }\n"
    ));
    assert!(cargo.contains("qemu-lm3s6965 = { path = \"/src/emcp/boards/qemu-lm3s6965\" }\n"));
    assert!(made[3]
        .text
        .contains(r#"ServerInfo::new("soil", env!("CARGO_PKG_VERSION"))"#));
    assert!(made.iter().all(|f| !f.text.contains('@')));
    // A plain `cargo build` is optimised for size (tests/tests/scaffold_qemu.rs measures it).
    assert!(
        cargo.contains("\n[profile.dev]\nopt-level = \"s\"\n"),
        "{cargo}"
    );
    let readme = &made[5].text;
    assert!(readme.starts_with("# soil\n"), "{readme}");
    assert!(
        readme.contains("embedded-mcp tools --qemu target/thumbv7m-none-eabi/release/soil\n"),
        "{readme}"
    );
    assert!(
        readme
            .contains(r#""args": ["bridge", "--qemu", "target/thumbv7m-none-eabi/release/soil"]"#),
        "{readme}"
    );

    let registry = files(&request(
        "soil",
        Source::Registry {
            version: "0.1.0".into(),
        },
    ))
    .unwrap();
    assert!(registry[0]
        .text
        .contains("embedded-mcp = { version = \"0.1.0\", features = [\"compact-float\"] }\n"));
    assert!(registry[0].text.contains("qemu-lm3s6965 = \"0.1.0\"\n"));
}

#[test]
fn approval_puts_set_led_behind_a_person_with_the_boards_sealing() {
    let checkout = Source::Checkout(PathBuf::from("/src/emcp"));
    for (board, library) in [
        (Board::QemuM3, "qemu_lm3s6965"),
        (Board::QemuRiscv, "qemu_virt"),
        (Board::Rp2040, "rp2040_mcp"),
    ] {
        let made = files(&Request {
            board,
            approval: true,
            ..request("soil", checkout.clone())
        })
        .unwrap();
        let text = |path: &str| &made.iter().find(|f| f.path.ends_with(path)).unwrap().text;
        let dir = library.replace('_', "-");
        assert!(
            text("Cargo.toml").contains(&format!(
                "{dir} = {{ path = \"/src/emcp/boards/{dir}\", features = [\"approval\"] }}\n"
            )),
            "{}",
            text("Cargo.toml")
        );
        assert!(text("src/tools.rs").contains("confirm = Self::ask_led"));
        assert!(
            text("src/main.rs").contains(&format!(", {library}::approval::sealing())")),
            "{}",
            text("src/main.rs")
        );
        assert!(text("README.md").contains("`set_led on=true` asks a person first"));
    }
    let esp = files(&Request {
        board: Board::Esp32c3,
        approval: true,
        ..request("soil", checkout)
    });
    assert_eq!(
        esp.unwrap_err().to_string(),
        "--approval: esp32c3 has no board library yet to supply the key, boot salt and clock \
         (boards with one: qemu-m3, qemu-riscv, rp2040)"
    );
}

#[test]
fn nothing_is_written_over_a_folder_that_holds_files() {
    let dir = std::env::temp_dir().join(format!("embedded-mcp-scaffold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let made = files(&request("soil", Source::this_version())).unwrap();
    write(&dir, &made).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("src/tools.rs")).unwrap(),
        made[4].text
    );
    let again = write(&dir, &made).unwrap_err();
    assert!(matches!(again, ScaffoldError::NotEmpty(_)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_board_gets_the_same_tools_and_its_own_main() {
    let checkout = Source::Checkout(PathBuf::from("/src/emcp"));
    let mut tools = Vec::new();
    for (name, board) in Board::ALL {
        assert_eq!(Board::from_name(name).unwrap(), board);
        assert_eq!(board.name(), name);
        let made = files(&Request {
            name: "soil".into(),
            board,
            source: checkout.clone(),
            approval: false,
        })
        .unwrap();
        let text = |path: &str| {
            made.iter()
                .find(|f| f.path == Path::new(path))
                .unwrap_or_else(|| panic!("{name}: no {path}"))
                .text
                .clone()
        };
        assert!(made.iter().all(|f| !f.text.contains('@')), "{name}");
        assert!(
            text(".cargo/config.toml").contains("[build]\ntarget = \""),
            "{name}"
        );
        assert!(
            text("src/main.rs").contains(r#"ServerInfo::new("soil", env!("CARGO_PKG_VERSION"))"#),
            "{name}"
        );
        let cargo = text("Cargo.toml");
        assert!(cargo.contains(
            "embedded-mcp = { path = \"/src/emcp/core\", features = [\"compact-float\"] }\n"
        ));
        assert!(cargo.ends_with("debug = 2\n"), "{name}: {cargo}");
        tools.push(text("src/tools.rs"));
    }
    assert!(tools.windows(2).all(|w| w[0] == w[1]));
    let board_library = |board, name: &str| {
        let made = files(&Request {
            name: "soil".into(),
            board,
            source: Source::Registry {
                version: "0.1.0".into(),
            },
            approval: false,
        })
        .unwrap();
        made[0].text.contains(&format!("\n{name} = \"0.1.0\"\n"))
    };
    assert!(board_library(Board::QemuRiscv, "qemu-virt"));
    assert!(board_library(Board::Rp2040, "rp2040-mcp"));
    assert!(!board_library(Board::Esp32c3, "esp32c3-mcp"));
}
