//! The micro:bit v1's 5×5 LED display, which is wired as a 3×9 matrix: three row lines
//! (P0.13-P0.15, driven high to light) and nine column lines (P0.04-P0.12, driven low to light).
//! Only one row is lit at a time, so TIMER1 steps through the rows every 2 ms (a whole picture
//! 166 times a second) while any LED is on; with every LED off it stops (no interrupts at all).
//!
//! A picture is a [`Frame`]: five rows, top first, each a 5-bit number whose bit 4 is the
//! leftmost LED (`0b10001` lights both ends of the row). [`plan`] turns it into the column lines
//! of each matrix row (pure, and checked by the QEMU tests through the tools' answers).

use core::cell::Cell;

use cortex_m::peripheral::NVIC;
use critical_section::Mutex;
use nrf51_hal::gpio::{Disconnected, Level, Pin};
use nrf51_hal::pac::{interrupt, Interrupt, GPIO, TIMER1};

/// Five rows, top first; bit 4 of each is its leftmost LED.
pub type Frame = [u8; 5];

/// First GPIO line of the three matrix rows (P0.13).
const FIRST_ROW_PIN: u32 = 13;
/// First GPIO line of the nine matrix columns (P0.04).
const FIRST_COLUMN_PIN: u32 = 4;
/// Every column line (P0.04-P0.12).
const ALL_COLUMNS: u32 = 0x1FF << FIRST_COLUMN_PIN;
/// Every row line (P0.13-P0.15).
const ALL_ROWS: u32 = 0b111 << FIRST_ROW_PIN;
/// Microseconds each matrix row stays lit.
const ROW_TIME_US: u32 = 2000;

/// Where LED (x, y) sits in the matrix: `WIRING[y][x]` is (matrix row 0-2, column 0-8), from
/// the micro:bit v1 schematic.
const WIRING: [[(u8, u8); 5]; 5] = [
    [(0, 0), (1, 3), (0, 1), (1, 4), (0, 2)],
    [(2, 3), (2, 4), (2, 5), (2, 6), (2, 7)],
    [(1, 1), (0, 8), (1, 2), (2, 8), (1, 0)],
    [(0, 7), (0, 6), (0, 5), (0, 4), (0, 3)],
    [(2, 2), (1, 6), (2, 0), (1, 5), (2, 1)],
];

// Checked while compiling: every LED has its own matrix position, inside the 3×9 matrix.
const _: () = {
    let mut seen = [[false; 9]; 3];
    let mut i = 0;
    while i < 25 {
        let (row, column) = WIRING[i / 5][i % 5];
        assert!(row < 3 && column < 9, "outside the matrix");
        assert!(
            !seen[row as usize][column as usize],
            "two LEDs on one matrix position"
        );
        seen[row as usize][column as usize] = true;
        i += 1;
    }
};

/// The column lines to drive low for each matrix row to show `frame` (GPIO bit masks).
pub fn plan(frame: &Frame) -> [u32; 3] {
    let mut columns = [0u32; 3];
    for (row_bits, wiring) in frame.iter().zip(WIRING.iter()) {
        for (x, &(row, column)) in wiring.iter().enumerate() {
            if row_bits & (0b10000 >> x) != 0 {
                if let Some(lit) = columns.get_mut(usize::from(row)) {
                    *lit |= 1 << (FIRST_COLUMN_PIN + u32::from(column));
                }
            }
        }
    }
    columns
}

/// The picture being shown, as matrix columns per row, and the row lit now.
#[derive(Clone, Copy)]
struct Scan {
    columns: [u32; 3],
    row: usize,
}

static SCAN: Mutex<Cell<Scan>> = Mutex::new(Cell::new(Scan {
    columns: [0; 3],
    row: 0,
}));

/// Makes the 12 matrix lines outputs (every LED off) and readies TIMER1. `rows` are P0.13-P0.15
/// and `columns` P0.04-P0.12, in order (taken from the HAL's port 0, so nothing else drives
/// them). Call once, at boot.
pub fn start(rows: [Pin<Disconnected>; 3], columns: [Pin<Disconnected>; 9], timer1: TIMER1) {
    // The HAL sets each line's direction and level; afterwards the scan drives the lines through
    // the port's OUTSET/OUTCLR registers, several at once.
    for row in rows {
        row.into_push_pull_output(Level::Low);
    }
    for column in columns {
        column.into_push_pull_output(Level::High);
    }
    timer1.tasks_stop.write(|w| unsafe { w.bits(1) });
    timer1.mode.write(|w| w.mode().timer());
    timer1.bitmode.write(|w| w.bitmode()._16bit());
    timer1.prescaler.write(|w| unsafe { w.prescaler().bits(4) });
    timer1.cc[0].write(|w| unsafe { w.bits(ROW_TIME_US) });
    timer1.shorts.write(|w| w.compare0_clear().enabled());
    timer1.intenset.write(|w| w.compare0().set());
    // Safety: the handler only touches TIMER1's event, the matrix lines and `SCAN`.
    unsafe { NVIC::unmask(Interrupt::TIMER1) };
}

fn timer() -> &'static nrf51_hal::pac::timer0::RegisterBlock {
    // Safety: `start` took TIMER1; only this module uses it, through its tasks and events.
    unsafe { &*TIMER1::ptr() }
}

fn port() -> &'static nrf51_hal::pac::gpio::RegisterBlock {
    // Safety: OUTSET/OUTCLR change only the lines written as 1: here only the matrix lines, which
    // `start` took from the HAL.
    unsafe { &*GPIO::ptr() }
}

/// Shows `frame`: starts the row scan when an LED is on, stops it (all lines off) when none is.
pub fn show(frame: &Frame) {
    let columns = plan(frame);
    let lit = columns.iter().any(|&c| c != 0);
    critical_section::with(|cs| {
        let scan = SCAN.borrow(cs);
        scan.set(Scan {
            columns,
            row: scan.get().row,
        });
        let timer = timer();
        if lit {
            timer.tasks_start.write(|w| unsafe { w.bits(1) });
        } else {
            timer.tasks_stop.write(|w| unsafe { w.bits(1) });
            timer.tasks_clear.write(|w| unsafe { w.bits(1) });
            timer.events_compare[0].write(|w| unsafe { w.bits(0) });
            NVIC::unpend(Interrupt::TIMER1);
            port().outclr.write(|w| unsafe { w.bits(ALL_ROWS) });
            port().outset.write(|w| unsafe { w.bits(ALL_COLUMNS) });
        }
    });
}

/// Lights the next matrix row.
#[interrupt]
fn TIMER1() {
    timer().events_compare[0].write(|w| unsafe { w.bits(0) });
    critical_section::with(|cs| {
        let scan = SCAN.borrow(cs);
        let Scan { columns, row } = scan.get();
        let row = (row + 1) % 3;
        let port = port();
        port.outclr.write(|w| unsafe { w.bits(ALL_ROWS) });
        port.outset.write(|w| unsafe { w.bits(ALL_COLUMNS) });
        port.outclr
            .write(|w| unsafe { w.bits(columns.get(row).copied().unwrap_or(0)) });
        port.outset
            .write(|w| unsafe { w.bits(1 << (FIRST_ROW_PIN + row as u32)) });
        scan.set(Scan { columns, row });
    });
}
