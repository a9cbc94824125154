//! A hint to the processor to fetch memory that a hot loop reads a few agents later: the agents'
//! route codes live in buffers of their own, one cache miss each when a large crowd is walked in
//! slot order, and asking for the next ones while this one is worked on overlaps those misses.
//!
//! A prefetch reads nothing and cannot fault, whatever the address: the one `unsafe` call is the
//! intrinsic's signature, not a memory access. Elsewhere than x86-64 it does nothing.

/// Asks for the cache line holding `ptr` (any address; none is read).
#[inline(always)]
pub(crate) fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache; it never dereferences `ptr` and cannot fault
    // (SSE, which it needs, is part of every x86-64 processor).
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}
