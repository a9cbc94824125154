//! # throng-capi
//!
//! The C ABI of throng: a shared library (`libthrong_capi.so`, `throng_capi.dll`,
//! `libthrong_capi.dylib`) and a static one, with the header `include/throng.h` (generated from
//! this crate by cbindgen; `tests/header.rs` fails when it is stale). Plain C types only, so
//! that any language with a C foreign-function interface (C#'s P/Invoke, Python's ctypes, ...)
//! binds it directly.
//!
//! - Handles are opaque pointers: a grid ([`grid`]), a navigation graph ([`nav`]) and a
//!   simulation ([`sim`], [`sim_agents`]), each made by a `throng_*_new`-like call and freed by
//!   its `throng_*_free`. Batch planning ([`plan`]) answers many queries in one call.
//! - Every function returns a [`ThrongStatus`] (0 is success) and writes its results through
//!   pointers into memory the caller owns; the message of a failure is read with
//!   [`throng_last_error`] on the same thread. A panic never crosses the boundary: it becomes
//!   `THRONG_STATUS_PANIC` ([`status`]).
//! - NULL or misaligned pointers, buffers said to be too small, cells outside the grid, unknown
//!   agent ids and handles that are not live handles of the right kind are errors, never
//!   undefined behaviour. A freed handle is detected through a registry of live handles
//!   (`handle.rs`); detection is best effort, as a later handle of the same kind may get the
//!   freed one's address.
//!
//! ## Threads
//!
//! The engine plans on its own threads (a rayon pool, all cores unless
//! [`throng_set_threads`] says otherwise): calls that plan (`throng_sim_step`,
//! `throng_plan_batch`, `throng_nav_build`) use them and return when done.
//!
//! Any function may be called from any thread. Calls on different handles run concurrently.
//! Calls on the same handle are serialised by a lock inside it (a simulation is one crowd: its
//! steps cannot overlap), except that a grid and a navigation graph may be read by any number
//! of calls at once (planning, making simulations); `throng_grid_set_walkable` waits for the
//! readers. A `throng_*_free` must not run while another call uses the same handle, and nothing
//! may use a handle after its free: the caller orders those.
//!
//! ## Safety
//!
//! Every `unsafe extern "C"` function has the same contract: each pointer argument is NULL
//! (where the function allows it) or points to memory valid for what its documentation says
//! (a NUL-terminated UTF-8 string, or as many elements as the count or capacity argument
//! says), not written by anything else during the call. Handles are those returned by this
//! library. The unsafe code is contained in `ptr.rs` (the caller's pointers made into slices,
//! after NULL and alignment checks) and `handle.rs` (boxes turned into handles and back).

#![allow(clippy::missing_safety_doc)] // one contract for every function: "Safety" above

pub mod grid;
mod handle;
pub mod nav;
pub mod plan;
mod ptr;
pub mod sim;
pub mod sim_agents;
pub mod sim_frame;
pub mod sim_reads;
pub mod sim_snapshot;
pub mod status;

use std::ffi::c_char;

pub use grid::ThrongGrid;
pub use nav::ThrongNav;
pub use plan::THRONG_NO_PATH;
pub use sim::{ThrongSim, ThrongTickEvents};
pub use sim_agents::THRONG_NO_GOAL;
pub use status::{ThrongStatus, throng_last_error};

use status::{Failure, guard};

/// The library's version, `"MAJOR.MINOR.PATCH"` (static, NUL-terminated). Never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn throng_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The version of the ABI this header and library describe: raised whenever a function's
/// signature, a struct's layout or a constant's meaning changes. Pass it to
/// `throng_check_abi` once at load.
pub const THRONG_ABI_VERSION: u32 = 1;

/// The version of the ABI the library was built with (`THRONG_ABI_VERSION` of its header).
#[unsafe(no_mangle)]
pub extern "C" fn throng_abi_version() -> u32 {
    THRONG_ABI_VERSION
}

/// Checks that the caller's header matches the library: call it once at load with
/// `THRONG_ABI_VERSION` (the caller's). `THRONG_STATUS_ABI_MISMATCH`, with both versions in the
/// message, when they differ: the structs and functions the caller was built against are not
/// this library's, and no other call may be made.
#[unsafe(no_mangle)]
pub extern "C" fn throng_check_abi(expected: u32) -> ThrongStatus {
    guard(|| {
        if expected == THRONG_ABI_VERSION {
            Ok(())
        } else {
            Err(Failure::new(
                ThrongStatus::AbiMismatch,
                format!(
                    "the caller was built against ABI version {expected}, this library ({}) is \
                     ABI version {THRONG_ABI_VERSION}: rebuild the caller with this library's \
                     throng.h (or use the library of its version)",
                    env!("CARGO_PKG_VERSION")
                ),
            ))
        }
    })
}

/// Sets how many threads the engine plans on (0: one per core). Call it before anything that
/// plans (the pool is made on first use and cannot change afterwards): later calls give
/// `THRONG_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn throng_set_threads(threads: u32) -> ThrongStatus {
    guard(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
            .map_err(|e| {
                Failure::invalid(format!(
                    "the engine's threads are already running, set threads first: {e}"
                ))
            })
    })
}
