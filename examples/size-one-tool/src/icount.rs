//! Instruction counts of `tools/call` on the device, under QEMU with `-icount shift=0` (every
//! instruction advances the virtual clock by 1 ns, so SysTick, clocked from it, counts
//! instructions in fixed steps).
//!
//! SysTick's step is calibrated first with a loop of known length (two instructions per turn),
//! then each request is handled 16 times by `Server::handle_line` between two SysTick reads.
//! The result goes to the UART as one line per request kind, in instructions per call:
//! `icount 2026 <n>` and `icount legacy <n>`; then QEMU is stopped by a semihosting exit.
//! Cortex-M under QEMU only (Thumb assembly, SysTick, semihosting).

use embedded_io::Write;

use crate::uart::Uart;
use crate::McpServer;

const REQUEST_2026: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"read_temperature","arguments":{"sensor":1}}}"#;
const REQUEST_LEGACY: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_temperature","arguments":{"sensor":1}}}"#;
const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"icount","version":"1"}}}"#;

const REPEAT: u32 = 16;
const LOOP_TURNS: u32 = 100_000;

fn systick() -> u32 {
    // SAFETY: SysTick's current value register (read-only use).
    unsafe { (0xE000_E018 as *const u32).read_volatile() }
}

/// SysTick steps elapsed from `start` (it counts down, 24 bits).
fn elapsed(start: u32) -> u32 {
    start.wrapping_sub(systick()) & 0x00FF_FFFF
}

/// SysTick steps for `LOOP_TURNS` turns of a two-instruction loop.
fn calibrate() -> u32 {
    let start = systick();
    // SAFETY: a counted loop on a scratch register.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n}, #1",
            "bne 2b",
            n = inout(reg) LOOP_TURNS => _,
            options(nomem, nostack),
        );
    }
    elapsed(start)
}

fn write_number(uart: &mut Uart, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let _ = uart.write(&buf[i..]);
}

fn measure(server: &mut McpServer, out: &mut [u8], line: &[u8]) -> u32 {
    // Warm-up (the first call takes other branches: first sample).
    let _ = server.handle_line(line, out);
    let start = systick();
    for _ in 0..REPEAT {
        let n = server.handle_line(core::hint::black_box(line), out);
        core::hint::black_box(n);
    }
    elapsed(start)
}

/// Ends QEMU (semihosting `SYS_EXIT`, "application exit"; run with `-semihosting`).
fn exit() -> ! {
    // SAFETY: the semihosting call; QEMU stops the machine. On a board without a debugger
    // attached it would fault, which is why this is a QEMU-only feature.
    unsafe {
        core::arch::asm!("bkpt 0xab", in("r0") 0x18, in("r1") 0x20026, options(nostack));
    }
    loop {}
}

/// Measures, reports, and ends QEMU.
pub fn report(server: &mut McpServer, out: &mut [u8]) -> ! {
    let loop_steps = calibrate();
    let steps_2026 = measure(server, out, REQUEST_2026);
    let _ = server.handle_line(INITIALIZE, out);
    let steps_legacy = measure(server, out, REQUEST_LEGACY);
    let mut uart = Uart;
    for (name, steps) in [("2026", steps_2026), ("legacy", steps_legacy)] {
        // instructions = steps * (2 * LOOP_TURNS / loop_steps), per call.
        let per_call = u64::from(steps) * 2 * u64::from(LOOP_TURNS)
            / (u64::from(loop_steps.max(1)) * u64::from(REPEAT));
        let _ = uart.write(b"icount ");
        let _ = uart.write(name.as_bytes());
        let _ = uart.write(b" ");
        write_number(&mut uart, per_call);
        let _ = uart.write(b" (systick steps: loop ");
        write_number(&mut uart, u64::from(loop_steps));
        let _ = uart.write(b", calls ");
        write_number(&mut uart, u64::from(steps));
        let _ = uart.write(b")\n");
    }
    exit()
}
