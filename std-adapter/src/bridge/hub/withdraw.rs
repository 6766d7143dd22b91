//! Withdrawing the tools of a device that went away: its re-listing has taken longer than
//! [`WITHDRAW_AFTER`], so hosts learn it is gone without waiting for its reconnect attempts or
//! its request timeout.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Hub;
use crate::bridge::catalog::{Fill, Tools};

/// How long a device's re-listing may take before its tools are withdrawn: longer than a reset
/// or a QEMU restart takes (the tools then stay listed throughout), far shorter than a round of
/// reconnect attempts or a request timeout.
pub(super) const WITHDRAW_AFTER: Duration = Duration::from_secs(2);

impl Hub {
    /// When the next device's tools are due to be withdrawn, if any.
    pub(super) fn next_withdrawal(&self) -> Option<Instant> {
        self.slots
            .iter()
            .filter(|s| !s.shown.entries().is_empty())
            .filter_map(|s| s.relisting_since)
            .map(|since| since + WITHDRAW_AFTER)
            .min()
    }

    /// Withdraws the tools of every device whose re-listing has taken [`WITHDRAW_AFTER`].
    pub(super) fn withdraw_stale(&mut self) {
        let mut changed = false;
        for slot in &mut self.slots {
            let stale = slot
                .relisting_since
                .is_some_and(|since| self.now >= since + WITHDRAW_AFTER);
            if stale && !slot.shown.entries().is_empty() {
                self.log.info(format_args!(
                    "device {} has not listed its tools for {WITHDRAW_AFTER:?}: withdrawn",
                    slot.name
                ));
                slot.shown = Arc::new(Tools::empty(Fill::Failed));
                changed = true;
            }
        }
        if changed {
            self.publish_tools();
            if self.anyone_listens() {
                self.announce_list_changed();
            }
        }
    }
}
