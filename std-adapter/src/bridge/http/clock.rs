//! The front's one clock: tokio's, which tests pause and advance. The deciding code of the front
//! and of the clients layer takes the `now` read here.

/// Now, on the front's clock.
pub(super) fn now() -> std::time::Instant {
    tokio::time::Instant::now().into_std()
}
