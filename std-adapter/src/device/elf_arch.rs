//! The architecture of a firmware ELF image (its header's `e_machine`, and for Arm the
//! `Tag_CPU_arch` of its `.ARM.attributes`), so that `bridge --qemu FIRMWARE.elf` boots it on a
//! QEMU that can run it: Arm images on `qemu-system-arm` with the configured Cortex-M board,
//! ARMv6-M (Cortex-M0) images on `microbit` (QEMU's only Cortex-M0 board: the nRF51822 of the
//! BBC micro:bit), 32-bit RISC-V images on `qemu-system-riscv32 -machine virt -bios none`.

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
/// `sh_type` of the `.ARM.attributes` section.
const SHT_ARM_ATTRIBUTES: u32 = 0x7000_0003;
/// The file attributes' tag (`Tag_File`) and the CPU architecture's (`Tag_CPU_arch`).
const TAG_FILE: u64 = 1;
const TAG_CPU_ARCH: u64 = 6;
/// `Tag_CPU_arch` values of ARMv6-M and ARMv6S-M (Cortex-M0, M0+, M1).
const CPU_ARCH_V6M: [u64; 2] = [11, 12];

/// What an ELF header says the image runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElfArch {
    /// 32-bit Arm (Cortex-M firmware).
    Arm,
    /// 32-bit Arm for ARMv6-M (Cortex-M0, M0+, M1), as its `.ARM.attributes` say
    /// ([`of_file`] tells it from [`ElfArch::Arm`]; a header alone cannot).
    ArmV6M,
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
    match from_header(&header)? {
        ElfArch::Arm => {
            let image = std::fs::read(path).ok()?;
            Some(refine_arm(&image))
        }
        arch => Some(arch),
    }
}

/// [`ElfArch::ArmV6M`] when the (32-bit, little-endian) Arm `image` says ARMv6-M in its
/// `.ARM.attributes`, else [`ElfArch::Arm`].
pub fn refine_arm(image: &[u8]) -> ElfArch {
    match arm_cpu_arch(image) {
        Some(arch) if CPU_ARCH_V6M.contains(&arch) => ElfArch::ArmV6M,
        _ => ElfArch::Arm,
    }
}

/// `Tag_CPU_arch` from the `.ARM.attributes` section of a 32-bit little-endian ELF image.
fn arm_cpu_arch(image: &[u8]) -> Option<u64> {
    let u16_at = |at: usize| {
        Some(u16::from_le_bytes(
            image.get(at..at.checked_add(2)?)?.try_into().ok()?,
        ))
    };
    let u32_at = |at: usize| {
        Some(u32::from_le_bytes(
            image.get(at..at.checked_add(4)?)?.try_into().ok()?,
        ))
    };
    let table = usize::try_from(u32_at(32)?).ok()?;
    let entry = usize::from(u16_at(46)?);
    let count = usize::from(u16_at(48)?);
    (0..count).find_map(|i| {
        let header = table.checked_add(i.checked_mul(entry)?)?;
        if u32_at(header.checked_add(4)?)? != SHT_ARM_ATTRIBUTES {
            return None;
        }
        let offset = usize::try_from(u32_at(header.checked_add(16)?)?).ok()?;
        let size = usize::try_from(u32_at(header.checked_add(20)?)?).ok()?;
        cpu_arch_in_attributes(image.get(offset..offset.checked_add(size)?)?)
    })
}

/// `Tag_CPU_arch` among the "aeabi" file attributes of an `.ARM.attributes` section: format
/// `A`, then vendor subsections (length, vendor name, then tagged blocks of attributes).
fn cpu_arch_in_attributes(section: &[u8]) -> Option<u64> {
    let (&b'A', mut rest) = section.split_first()? else {
        return None;
    };
    while let Some(length) = rest.get(..4) {
        let length = usize::try_from(u32::from_le_bytes(length.try_into().ok()?)).ok()?;
        let subsection = rest.get(4..length)?;
        rest = rest.get(length..)?;
        let name_end = subsection.iter().position(|&b| b == 0)?;
        if subsection.get(..name_end)? != b"aeabi" {
            continue;
        }
        let mut blocks = subsection.get(name_end + 1..)?;
        while !blocks.is_empty() {
            // A block's size counts its tag and its size field too.
            let (tag, tag_len) = uleb128(blocks)?;
            let size = blocks.get(tag_len..tag_len + 4)?;
            let size = usize::try_from(u32::from_le_bytes(size.try_into().ok()?)).ok()?;
            let attributes = blocks.get(tag_len + 4..size)?;
            blocks = blocks.get(size..)?;
            if tag == TAG_FILE {
                return cpu_arch_in_block(attributes);
            }
        }
    }
    None
}

/// `Tag_CPU_arch` in a block of (tag, value) attributes.
fn cpu_arch_in_block(mut attributes: &[u8]) -> Option<u64> {
    while !attributes.is_empty() {
        let (tag, len) = uleb128(attributes)?;
        attributes = attributes.get(len..)?;
        let (value, len) = uleb128(attributes).unwrap_or((0, 0));
        if tag == TAG_CPU_ARCH {
            return Some(value);
        }
        // The attributes ABI: tags 4, 5, 65, 67 and odd tags above 32 hold a NUL-terminated
        // string, 32 a number and a string; every other tag a ULEB128 number.
        let string = matches!(tag, 4 | 5) || (tag > 32 && tag % 2 == 1);
        let skip = if string {
            attributes.iter().position(|&b| b == 0)? + 1
        } else if tag == 32 {
            len + attributes.get(len..)?.iter().position(|&b| b == 0)? + 1
        } else {
            len
        };
        attributes = attributes.get(skip..)?;
    }
    None
}

/// An unsigned LEB128 number and its length in bytes (at most 10).
fn uleb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// `config` with machine and program fitted to `arch`: a 32-bit RISC-V image moves from an Arm
/// board to `virt`, and from the default [`ARM_PROGRAM`] to [`RISCV32_PROGRAM`] (a program set
/// with `--qemu-bin` or `EMBEDDED_MCP_QEMU` to anything else is kept); an ARMv6-M image moves to
/// `microbit`. Any other image keeps the configuration as it is.
pub fn fit(config: &QemuConfig, arch: Option<ElfArch>) -> QemuConfig {
    let mut fitted = config.clone();
    if arch == Some(ElfArch::ArmV6M) {
        fitted.machine = Machine::Microbit;
    }
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

    /// A little-endian ELF32 Arm image whose only section is `.ARM.attributes` holding the
    /// "aeabi" file `attributes` (tag, value bytes).
    fn arm_image(attributes: &[u8]) -> Vec<u8> {
        let mut file_block = vec![1u8];
        file_block.extend_from_slice(&(5 + attributes.len() as u32).to_le_bytes());
        file_block.extend_from_slice(attributes);
        let mut subsection = (4 + 6 + file_block.len() as u32).to_le_bytes().to_vec();
        subsection.extend_from_slice(b"aeabi\0");
        subsection.extend_from_slice(&file_block);
        // A vendor subsection before it, which must be skipped.
        let mut section = vec![b'A'];
        section.extend_from_slice(&11u32.to_le_bytes());
        section.extend_from_slice(b"gnu\0\x01\x02\x03");
        section.extend_from_slice(&subsection);
        let mut image = header(1, 1, 40);
        let offset = image.len() as u32;
        image.extend_from_slice(&section);
        let table = image.len() as u32;
        // Section 0 is empty (type 0); section 1 is the attributes.
        image.extend_from_slice(&[0u8; 40]);
        let mut entry = [0u8; 40];
        entry[4..8].copy_from_slice(&SHT_ARM_ATTRIBUTES.to_le_bytes());
        entry[16..20].copy_from_slice(&offset.to_le_bytes());
        entry[20..24].copy_from_slice(&(section.len() as u32).to_le_bytes());
        image.extend_from_slice(&entry);
        image[32..36].copy_from_slice(&table.to_le_bytes());
        image[46..48].copy_from_slice(&40u16.to_le_bytes());
        image[48..50].copy_from_slice(&2u16.to_le_bytes());
        image
    }

    #[test]
    fn the_cpu_arch_attribute_tells_armv6m_from_other_arm_images() {
        // As rustc writes them for thumbv6m-none-eabi: Tag_conformance "2.09", then
        // Tag_CPU_arch v6S-M (12), Tag_CPU_arch_profile 'M'.
        let v6sm = arm_image(b"C2.09\0\x06\x0c\x07M");
        assert_eq!(refine_arm(&v6sm), ElfArch::ArmV6M);
        // Tag_CPU_name "cortex-m0" (a string), Tag_compatibility (a number and a string), then
        // Tag_CPU_arch v6-M (11).
        let v6m = arm_image(b"\x05cortex-m0\0\x20\x01gnu\0\x06\x0b");
        assert_eq!(refine_arm(&v6m), ElfArch::ArmV6M);
        // v7-M (10, Cortex-M3) and v7E-M (13, Cortex-M4) stay Arm.
        assert_eq!(refine_arm(&arm_image(b"\x06\x0a\x07M")), ElfArch::Arm);
        assert_eq!(refine_arm(&arm_image(b"\x06\x0d")), ElfArch::Arm);
        // No attributes, or cut short anywhere: Arm, never a panic.
        assert_eq!(refine_arm(&arm_image(b"\x07M")), ElfArch::Arm);
        for end in 0..v6sm.len() {
            let _ = refine_arm(&v6sm[..end]);
        }
        assert_eq!(refine_arm(&header(1, 1, 40)), ElfArch::Arm);
    }

    #[test]
    fn an_armv6m_image_gets_the_microbit_machine_on_the_arm_qemu() {
        let mut config = QemuConfig::new("fw.elf");
        config.program = ARM_PROGRAM.into();
        let fitted = fit(&config, Some(ElfArch::ArmV6M));
        assert_eq!(fitted.machine, Machine::Microbit);
        assert_eq!(fitted.program, ARM_PROGRAM);
        let command = fitted.command(None);
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-machine",
                "microbit",
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
        assert_eq!(Machine::parse("microbit"), Some(Machine::Microbit));
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
