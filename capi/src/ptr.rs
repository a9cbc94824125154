//! The caller's pointers made into Rust values, checked first: NULL and misaligned pointers are
//! refused with [`ThrongStatus::NullPointer`] rather than dereferenced. What cannot be checked
//! (that a pointer really points to as many elements as the caller says) is the caller's side
//! of the contract, stated in the header.
//!
//! Output buffers are written through `MaybeUninit`, so a caller may pass memory it has not
//! initialised (fresh `malloc`).

use std::ffi::{CStr, c_char};
use std::mem::MaybeUninit;

use crate::status::{Failure, ThrongStatus};

fn null(what: &str) -> Failure {
    Failure::new(ThrongStatus::NullPointer, format!("{what} is NULL"))
}

fn check<T>(ptr: *const T, len: usize, what: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        return Err(null(what));
    }
    if !ptr.is_aligned() {
        return Err(Failure::new(
            ThrongStatus::NullPointer,
            format!(
                "{what} is misaligned (an array of {} needs {}-byte alignment)",
                std::any::type_name::<T>(),
                align_of::<T>()
            ),
        ));
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Failure::invalid(format!(
            "{what}: {len} elements is too many"
        )));
    }
    Ok(())
}

/// The `len` elements at `ptr`, read-only. `len` 0 gives the empty slice whatever `ptr` is.
pub(crate) fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    check(ptr, len, what)?;
    // SAFETY: `ptr` is non-null and aligned (checked), and the caller's contract (the header)
    // is that it points to `len` initialised elements that nothing writes during the call.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The `len` elements at `ptr`, to be written. `len` 0 gives the empty slice.
pub(crate) fn slice_out<'a, T>(
    ptr: *mut T,
    len: usize,
    what: &str,
) -> Result<&'a mut [MaybeUninit<T>], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    check(ptr, len, what)?;
    // SAFETY: `ptr` is non-null and aligned (checked), and the caller's contract is that it
    // points to `len` writable elements that nothing else reads or writes during the call;
    // `MaybeUninit<T>` has `T`'s layout and needs no initialised contents.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<T>>(), len) })
}

/// Like [`slice_out`], with NULL allowed: `None` when the caller does not want this output.
pub(crate) fn optional_out<'a, T>(
    ptr: *mut T,
    len: usize,
    what: &str,
) -> Result<Option<&'a mut [MaybeUninit<T>]>, Failure> {
    if ptr.is_null() {
        Ok(None)
    } else {
        slice_out(ptr, len, what).map(Some)
    }
}

/// Writes `value` where `ptr` points.
pub(crate) fn write<T>(ptr: *mut T, value: T, what: &str) -> Result<(), Failure> {
    check(ptr, 1, what)?;
    // SAFETY: `ptr` is non-null and aligned (checked), and the caller's contract is that it
    // points to one writable `T`; `write` does not read or drop what was there.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Writes `value` where `ptr` points, when `ptr` is not NULL.
pub(crate) fn write_optional<T>(ptr: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        Ok(())
    } else {
        write(ptr, value, what)
    }
}

/// The NUL-terminated UTF-8 string at `ptr`.
pub(crate) fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(null(what));
    }
    // SAFETY: `ptr` is non-null, and the caller's contract is that it points to a
    // NUL-terminated string that stays unchanged during the call.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map_err(|e| Failure::invalid(format!("{what} is not UTF-8: {e}")))
}

/// Copies `text` and a terminating NUL into the caller's buffer of `capacity` bytes, and its
/// length with the NUL into `needed` (when not NULL). A buffer that is NULL or too small is
/// left unwritten and gives [`ThrongStatus::BufferTooSmall`] (after `needed` is written).
pub(crate) fn write_text(
    text: &str,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> Result<(), Failure> {
    let len = text.len() + 1;
    write_optional(needed, len, "needed")?;
    if buffer.is_null() || capacity < len {
        return Err(Failure::new(
            ThrongStatus::BufferTooSmall,
            format!("the text needs {len} bytes with its NUL, the buffer has {capacity}"),
        ));
    }
    let out = slice_out(buffer.cast::<u8>(), len, "buffer")?;
    for (slot, &byte) in out.iter_mut().zip(text.as_bytes()) {
        slot.write(byte);
    }
    out[len - 1].write(0);
    Ok(())
}

/// Checks an output pointer before work whose result goes there is done (so that a NULL `out`
/// fails before a handle is made, and nothing leaks).
pub(crate) fn check_out<T>(ptr: *mut T, what: &str) -> Result<(), Failure> {
    check(ptr.cast_const(), 1, what)
}

/// [`check_out`] for an output that may be NULL.
pub(crate) fn check_out_optional<T>(ptr: *mut T, what: &str) -> Result<(), Failure> {
    if ptr.is_null() {
        Ok(())
    } else {
        check_out(ptr, what)
    }
}
