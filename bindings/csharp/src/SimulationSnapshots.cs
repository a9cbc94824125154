// Snapshots of a simulation: its whole state as bytes (a save game, a lockstep rollback point, a
// replay's start) and back, in place or as a new simulation. A simulation restored plays on
// exactly as the one saved would: the same state hash at every later tick.

using System;

namespace Throng
{
    public sealed partial class Simulation
    {
        /// <summary>
        /// The simulation's whole state as bytes (the map, settings, every agent with its route,
        /// queued changes, the last tick's events, the metrics). Read back by the same library
        /// version with <see cref="Restore"/> or <see cref="FromSnapshot"/>. Not while a split
        /// step is in flight (<see cref="ThrongBusyException"/>).
        /// </summary>
        public byte[] Snapshot()
        {
            while (true)
            {
                UIntPtr needed;
                var status = NativeMethods.throng_sim_snapshot(Handle, IntPtr.Zero, UIntPtr.Zero, out needed);
                if (status != Status.BufferTooSmall)
                {
                    Check.Ok(status);
                }
                var bytes = new byte[needed.ToUInt64()];
                using (var b = Pin.At(bytes, 0, 1))
                {
                    status = NativeMethods.throng_sim_snapshot(Handle, b.Address, needed, out needed);
                }
                // Another thread changed the simulation between the two calls: ask again.
                if (status == Status.BufferTooSmall)
                {
                    continue;
                }
                Check.Ok(status);
                if (needed.ToUInt64() != (ulong)bytes.Length)
                {
                    Array.Resize(ref bytes, (int)needed.ToUInt64());
                }
                return bytes;
            }
        }

        /// <summary>
        /// Replaces the simulation's whole state with <paramref name="snapshot"/> (from
        /// <see cref="Snapshot"/>): a rollback, this object stays the caller's. The snapshot's
        /// map must have this map's size and movement rule (<see cref="ThrongArgumentException"/>
        /// otherwise); damaged, truncated or other-version bytes give
        /// <see cref="ThrongParseException"/>. On error nothing changes. A simulation made from a
        /// scenario file carries on with its scripted map changes from the restored tick.
        /// </summary>
        public void Restore(byte[] snapshot)
        {
            NotNull(snapshot);
            Status status;
            using (var b = Pin.At(snapshot, 0, 1))
            {
                status = NativeMethods.throng_sim_restore(
                    Handle, b.Address, new UIntPtr((uint)snapshot.Length));
            }
            Check.Ok(status);
        }

        private static void NotNull(byte[] snapshot)
        {
            if (snapshot == null)
            {
                throw new ThrongArgumentException(Status.NullPointer, "snapshot is null");
            }
        }

        /// <summary>
        /// A new simulation from <paramref name="snapshot"/> (from <see cref="Snapshot"/>),
        /// planning on the engine's threads, without a scenario's scripted map changes. Damaged,
        /// truncated or other-version bytes give <see cref="ThrongParseException"/>.
        /// </summary>
        public static Simulation FromSnapshot(byte[] snapshot)
        {
            Engine.CheckAbi();
            NotNull(snapshot);
            SimHandle handle;
            Status status;
            using (var b = Pin.At(snapshot, 0, 1))
            {
                status = NativeMethods.throng_sim_from_snapshot(
                    b.Address, new UIntPtr((uint)snapshot.Length), out handle);
            }
            Check.Ok(status);
            return new Simulation(handle, 0);
        }
    }
}
