//! Handles: the boxes behind the opaque pointers that C holds, and the checks made on every use.
//!
//! A handle is a `Box` turned into a raw pointer. Every live handle's address is in a
//! process-wide registry with its kind, so a pointer is looked up before it is dereferenced: a
//! freed handle, a pointer this library never made, or a handle of another kind is refused with
//! [`ThrongStatus::InvalidHandle`] without reading the memory it points at. The handle also
//! carries a magic number of its kind, checked after the lookup (it catches a caller that wrote
//! over the handle) and set to a dead value when it is freed. Detection is best effort: once the
//! allocator gives a freed handle's address to a new handle of the same kind, the stale pointer
//! names the new handle.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::status::{Failure, ThrongStatus};

/// The magic number a freed handle is left with.
const DEAD: u64 = 0xdead_dead_dead_dead;

/// What the registry knows of each live handle: its address and its kind's magic number.
static LIVE: Mutex<BTreeMap<usize, u64>> = Mutex::new(BTreeMap::new());

fn live() -> MutexGuard<'static, BTreeMap<usize, u64>> {
    // The registry is only ever inserted into or removed from: a panic elsewhere while it was
    // held cannot leave it half-changed.
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A kind of handle: its name in messages and its magic number.
pub(crate) trait Handle: Sized + Send + Sync + 'static {
    /// `"grid"`, `"navigation graph"`, `"simulation"`.
    const NAME: &'static str;
    /// This kind's magic number.
    const MAGIC: u64;
    /// The handle's magic number.
    fn magic(&self) -> &AtomicU64;
}

/// Boxes `handle`, registers it and returns the pointer C will hold.
pub(crate) fn into_raw<H: Handle>(handle: H) -> *mut H {
    handle.magic().store(H::MAGIC, Ordering::Relaxed);
    let ptr = Box::into_raw(Box::new(handle));
    live().insert(ptr as usize, H::MAGIC);
    ptr
}

/// The handle `ptr` names, after checking that it is a live handle of kind `H`.
pub(crate) fn get<'a, H: Handle>(ptr: *const H) -> Result<&'a H, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(
            ThrongStatus::NullPointer,
            format!("the {} handle is NULL", H::NAME),
        ));
    }
    check_live::<H>(ptr as usize)?;
    // SAFETY: the registry holds exactly the addresses of boxes made by `into_raw` for kind `H`
    // and not yet freed by `free` (which unregisters before dropping), so `ptr` points to a live
    // `H`. The thread rules (see the crate docs) forbid freeing a handle while another call uses
    // it, so it stays alive for the call that borrows it here.
    let handle = unsafe { &*ptr };
    if handle.magic().load(Ordering::Relaxed) != H::MAGIC {
        return Err(Failure::new(
            ThrongStatus::InvalidHandle,
            format!(
                "the {} handle is damaged (its magic number was overwritten)",
                H::NAME
            ),
        ));
    }
    Ok(handle)
}

/// [`get`] for a handle the call changes (through the lock inside it).
pub(crate) fn get_mut<'a, H: Handle>(ptr: *mut H) -> Result<&'a H, Failure> {
    get(ptr.cast_const())
}

fn check_live<H: Handle>(addr: usize) -> Result<(), Failure> {
    match live().get(&addr) {
        Some(&magic) if magic == H::MAGIC => Ok(()),
        found => Err(refused::<H>(found.is_some())),
    }
}

/// Why a pointer is not a live handle of kind `H`: it is one of another kind (`registered`), or
/// no live handle at all.
fn refused<H: Handle>(registered: bool) -> Failure {
    let message = if registered {
        format!(
            "the handle given as a {} is a handle of another kind",
            H::NAME
        )
    } else {
        format!(
            "not a live {} handle (freed already, or not made by throng)",
            H::NAME
        )
    };
    Failure::new(ThrongStatus::InvalidHandle, message)
}

/// Frees the handle `ptr` names; NULL does nothing (as C's `free`).
pub(crate) fn free<H: Handle>(ptr: *mut H) -> Result<(), Failure> {
    if ptr.is_null() {
        return Ok(());
    }
    {
        let mut live = live();
        match live.get(&(ptr as usize)) {
            Some(&magic) if magic == H::MAGIC => live.remove(&(ptr as usize)),
            found => return Err(refused::<H>(found.is_some())),
        };
    }
    // SAFETY: the registry held `ptr` as a live `H`, so it came from `Box::into_raw` in
    // `into_raw` and was not freed since; it is now unregistered, so no later call reaches it.
    let handle = unsafe { Box::from_raw(ptr) };
    handle.magic().store(DEAD, Ordering::Relaxed);
    drop(handle);
    Ok(())
}

/// The failure of a handle whose lock a panic poisoned: its state may be half-changed, so it is
/// refused from then on.
pub(crate) fn poisoned<H: Handle>() -> Failure {
    Failure::new(
        ThrongStatus::Panic,
        format!(
            "the {} is unusable: an earlier call on it panicked; free it",
            H::NAME
        ),
    )
}
