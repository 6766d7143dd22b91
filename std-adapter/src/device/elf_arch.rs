//! The architecture of a firmware ELF image (its header's `e_machine`), so that
//! `bridge --qemu FIRMWARE.elf` boots it on a QEMU that can run it: Arm images on
//! `qemu-system-arm` with the configured Cortex-M board, 32-bit RISC-V images on
//! `qemu-system-riscv32 -machine virt -bios none`.

use std::io::Read;
use std::path::Path;

use super::qemu_config::{Machine, QemuConfig};

/// The QEMU program for Arm images, [`QemuConfig::new`]'s default.
pub const ARM_PROGRAM: &str = "qemu-system-arm";
/// The QEMU program for 32-bit RISC-V images.
pub const RISCV32_PROGRAM: &str = "qemu-system-riscv32";

/// `e_machine` of 32-bit Arm.
const EM_ARM: u16 = 40;
/// `e_machine` of RISC-V (32 or 64 bits, told apart by `EI_CLASS`).
const EM_RISCV: u16 = 243;

/// What an ELF header says the image runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElfArch {
    /// 32-bit Arm (Cortex-M firmware).
    Arm,
    /// 32-bit RISC-V.
    RiscV32,
    /// 64-bit RISC-V.
    RiscV64,
    /// Any other `e_machine` (with its 32- or 64-bit class).
    Other {
        /// The header's `e_machine`.
        machine: u16,
        /// True for `ELFCLASS64`.
        wide: bool,
    },
}

/// The architecture in an ELF header (its first 20 bytes suffice); `None` when `header` is not
/// the start of an ELF file.
pub fn from_header(header: &[u8]) -> Option<ElfArch> {
    let ident = header.get(..20)?;
    if ident.get(..4)? != b"\x7fELF" {
        return None;
    }
    let wide = match ident.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let bytes = [*ident.get(18)?, *ident.get(19)?];
    let machine = match ident.get(5)? {
        1 => u16::from_le_bytes(bytes),
        2 => u16::from_be_bytes(bytes),
        _ => return None,
    };
    Some(match (machine, wide) {
        (EM_ARM, false) => ElfArch::Arm,
        (EM_RISCV, false) => ElfArch::RiscV32,
        (EM_RISCV, true) => ElfArch::RiscV64,
        (machine, wide) => ElfArch::Other { machine, wide },
    })
}

/// The architecture of the ELF file at `path`; `None` when it cannot be read or is no ELF file.
pub fn of_file(path: &Path) -> Option<ElfArch> {
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut header))
        .ok()?;
    from_header(&header)
}

/// `config` with machine and program fitted to `arch`: a 32-bit RISC-V image moves from an Arm
/// board to `virt`, and from the default [`ARM_PROGRAM`] to [`RISCV32_PROGRAM`] (a program set
/// with `--qemu-bin` or `EMBEDDED_MCP_QEMU` to anything else is kept). Any other image keeps the
/// configuration as it is.
pub fn fit(config: &QemuConfig, arch: Option<ElfArch>) -> QemuConfig {
    let mut fitted = config.clone();
    if arch == Some(ElfArch::RiscV32) && fitted.machine != Machine::RiscvVirt {
        fitted.machine = Machine::RiscvVirt;
        if fitted.program == ARM_PROGRAM {
            fitted.program = RISCV32_PROGRAM.into();
        }
    }
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header of `class` (1 or 2) and `data` (1 little, 2 big endian) for `machine`.
    fn header(class: u8, data: u8, machine: u16) -> Vec<u8> {
        let mut h = vec![0u8; 52];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = class;
        h[5] = data;
        h[6] = 1;
        let m = if data == 2 {
            machine.to_be_bytes()
        } else {
            machine.to_le_bytes()
        };
        h[18..20].copy_from_slice(&m);
        h
    }

    #[test]
    fn e_machine_and_class_give_the_architecture() {
        assert_eq!(from_header(&header(1, 1, 40)), Some(ElfArch::Arm));
        assert_eq!(from_header(&header(1, 1, 243)), Some(ElfArch::RiscV32));
        assert_eq!(from_header(&header(2, 1, 243)), Some(ElfArch::RiscV64));
        assert_eq!(
            from_header(&header(2, 1, 62)),
            Some(ElfArch::Other {
                machine: 62,
                wide: true
            })
        );
        // Big-endian e_machine is read as such.
        assert_eq!(from_header(&header(1, 2, 40)), Some(ElfArch::Arm));
    }

    #[test]
    fn not_an_elf_header_has_no_architecture() {
        assert_eq!(from_header(b"\x7fELF"), None, "too short");
        assert_eq!(from_header(&[0u8; 64]), None, "no magic");
        let mut h = header(1, 1, 40);
        h[4] = 3;
        assert_eq!(from_header(&h), None, "bad class");
        let mut h = header(1, 1, 40);
        h[5] = 0;
        assert_eq!(from_header(&h), None, "bad data encoding");
        assert_eq!(of_file(Path::new("/nonexistent/firmware.elf")), None);
    }

    #[test]
    fn a_riscv32_image_gets_the_virt_machine_and_the_riscv_qemu_unless_overridden() {
        let mut config = QemuConfig::new("fw.elf");
        config.program = ARM_PROGRAM.into();
        let fitted = fit(&config, Some(ElfArch::RiscV32));
        assert_eq!(fitted.machine, Machine::RiscvVirt);
        assert_eq!(fitted.program, RISCV32_PROGRAM);

        config.program = "/opt/qemu/bin/qemu-system-riscv32".into();
        let fitted = fit(&config, Some(ElfArch::RiscV32));
        assert_eq!(fitted.machine, Machine::RiscvVirt);
        assert_eq!(fitted.program, "/opt/qemu/bin/qemu-system-riscv32");
    }

    #[test]
    fn arm_and_unknown_images_keep_their_configuration() {
        let mut config = QemuConfig::new("fw.elf");
        config.program = ARM_PROGRAM.into();
        config.machine = Machine::Mps2An386;
        for arch in [
            Some(ElfArch::Arm),
            Some(ElfArch::RiscV64),
            Some(ElfArch::Other {
                machine: 62,
                wide: true,
            }),
            None,
        ] {
            assert_eq!(fit(&config, arch), config, "{arch:?}");
        }
    }

    #[test]
    fn the_riscv_command_line_is_virt_without_firmware() {
        let mut config = QemuConfig::new("fw.elf");
        config.program = ARM_PROGRAM.into();
        let command = fit(&config, Some(ElfArch::RiscV32)).command(None);
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(command.get_program(), RISCV32_PROGRAM);
        assert_eq!(
            args,
            [
                "-machine",
                "virt",
                "-bios",
                "none",
                "-display",
                "none",
                "-monitor",
                "none",
                "-semihosting-config",
                "enable=on,target=native",
                "-serial",
                "stdio",
                "-kernel",
                "fw.elf"
            ]
        );
    }
}
