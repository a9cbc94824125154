// Marshalling helpers of the binding: status checks (a failure becomes the exception of its
// family with the engine's message), UTF-8 strings both ways, and arrays pinned in place so that
// the engine reads and writes the caller's memory directly (no copy, no allocation per element).

using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Throng
{
    /// <summary>Turns a failed status into a <see cref="ThrongException"/>.</summary>
    internal static class Check
    {
        /// <summary>Returns when <paramref name="status"/> is Ok; throws otherwise.</summary>
        internal static void Ok(Status status)
        {
            if (status != Status.Ok)
            {
                // The message is thread-local on the native side: read it now, on this thread.
                throw ThrongException.For(status, Utf8.FromNative(NativeMethods.throng_last_error()));
            }
        }

        /// <summary>
        /// The number of elements a call may use in <paramref name="array"/> from
        /// <paramref name="offset"/> (0 for a null array); an offset outside the array throws.
        /// </summary>
        internal static int Room(Array array, int offset, string name)
        {
            int length = array == null ? 0 : array.Length;
            if (offset < 0 || offset > length)
            {
                throw new ThrongOutOfRangeException(string.Format(
                    "{0}: offset {1} is outside an array of {2}", name, offset, length));
            }
            return length - offset;
        }

        /// <summary>
        /// Throws <see cref="ThrongBufferTooSmallException"/> when an array the engine writes or reads
        /// <paramref name="count"/> elements of holds fewer from <paramref name="offset"/>: the C
        /// ABI takes a count, not a length, so this check is the binding's (a null array is left
        /// for the engine to refuse).
        /// </summary>
        internal static void Holds(Array array, int offset, int count, string name)
        {
            if (array != null && Room(array, offset, name) < count)
            {
                throw new ThrongBufferTooSmallException(string.Format(
                    "{0} holds {1} elements from offset {2}, the call needs {3}",
                    name, array.Length - offset, offset, count));
            }
        }
    }

    /// <summary>UTF-8 strings across the boundary.</summary>
    internal static class Utf8
    {
        /// <summary>The NUL-terminated UTF-8 bytes of <paramref name="text"/> (null stays null: NULL).</summary>
        internal static byte[] ToNative(string text)
        {
            if (text == null)
            {
                return null;
            }
            var bytes = new byte[Encoding.UTF8.GetByteCount(text) + 1];
            Encoding.UTF8.GetBytes(text, 0, text.Length, bytes, 0);
            return bytes;
        }

        /// <summary>The NUL-terminated UTF-8 string at <paramref name="text"/> (NULL gives "").</summary>
        internal static string FromNative(IntPtr text)
        {
            if (text == IntPtr.Zero)
            {
                return "";
            }
            int length = 0;
            while (Marshal.ReadByte(text, length) != 0)
            {
                length++;
            }
            var bytes = new byte[length];
            Marshal.Copy(text, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }

        /// <summary>The NUL-terminated UTF-8 string in <paramref name="buffer"/>.</summary>
        internal static string FromBuffer(byte[] buffer)
        {
            int length = Array.IndexOf(buffer, (byte)0);
            return Encoding.UTF8.GetString(buffer, 0, length < 0 ? buffer.Length : length);
        }
    }

    /// <summary>
    /// An array pinned for one native call (the garbage collector does not move it meanwhile) and
    /// the address of its element at an offset; a null array is the NULL pointer. Dispose unpins.
    /// </summary>
    internal struct Pin : IDisposable
    {
        private GCHandle pinned;

        /// <summary>The address of the element at the offset (IntPtr.Zero for a null array).</summary>
        internal IntPtr Address;

        /// <summary>
        /// Pins <paramref name="array"/> (elements of <paramref name="elementSize"/> bytes) and
        /// points at its element <paramref name="offset"/> (checked by the caller).
        /// </summary>
        internal static Pin At(Array array, int offset, int elementSize)
        {
            var pin = new Pin();
            if (array != null)
            {
                pin.pinned = GCHandle.Alloc(array, GCHandleType.Pinned);
                // An empty array has no element 0 to point at, but the engine reads none of it.
                pin.Address = new IntPtr(pin.pinned.AddrOfPinnedObject().ToInt64()
                    + (long)offset * elementSize);
            }
            return pin;
        }

        /// <summary>Unpins the array.</summary>
        public void Dispose()
        {
            if (pinned.IsAllocated)
            {
                pinned.Free();
            }
        }
    }
}
