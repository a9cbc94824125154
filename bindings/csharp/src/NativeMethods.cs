// The C ABI of capi/include/throng.h, declared for P/Invoke: one [DllImport] per function, with
// the header's names, parameter names and order (capi/tests/csharp.rs checks them against the
// header). Pointer types map as follows:
//   handles (ThrongGrid *, ...)           -> GridHandle, NavHandle, SimHandle (IntPtr in *_free)
//   ThrongGrid ** (a new handle)           -> out GridHandle, ...
//   const char * (a UTF-8 string in)       -> byte[] (NUL-terminated, made by Utf8.ToNative)
//   const char * (a string returned)       -> IntPtr (read by Utf8.FromNative)
//   arrays (uint32_t *, double *, ...)     -> IntPtr (a pinned array at an offset: see Pin)
//   one value written (uint32_t *, ...)    -> out uint, ...
//   size_t                                 -> UIntPtr
// Every function is cdecl (Rust's extern "C"); on 32-bit Windows P/Invoke would otherwise
// assume stdcall.

using System;
using System.Runtime.InteropServices;

namespace Throng
{
    /// <summary>The raw entry points of the native library (see capi/include/throng.h).</summary>
    internal static class NativeMethods
    {
        /// <summary>
        /// The native library's name: <c>libthrong_capi.so</c>, <c>libthrong_capi.dylib</c> or
        /// <c>throng_capi.dll</c>, found by the runtime's usual search. iOS links native code
        /// statically into the player: there the library is <c>__Internal</c>.
        /// </summary>
#if UNITY_IOS && !UNITY_EDITOR
        internal const string Library = "__Internal";
#else
        internal const string Library = "throng_capi";
#endif

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr throng_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern uint throng_abi_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_check_abi(uint expected);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_set_threads(uint threads);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_load(byte[] path, uint neighbours, out GridHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_from_cells(
            uint width, uint height, IntPtr cells, UIntPtr cell_count, uint neighbours,
            out GridHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_free(IntPtr grid);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_size(GridHandle grid, out uint width, out uint height);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_set_walkable(GridHandle grid, uint x, uint y, byte walkable);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_is_walkable(GridHandle grid, uint x, uint y, out byte walkable);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_set_cost(GridHandle grid, uint x, uint y, float cost);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_grid_cost(GridHandle grid, uint x, uint y, out float cost);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_nav_build(GridHandle grid, out NavHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_nav_save(NavHandle nav, byte[] path);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_nav_load(byte[] path, GridHandle grid, out NavHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_nav_free(IntPtr nav);

        // `nav` may be NULL: two declarations of the one entry point, as a SafeHandle cannot be
        // NULL.
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_plan_batch(
            GridHandle grid, NavHandle nav, byte[] planner, IntPtr starts, IntPtr goals,
            UIntPtr count, IntPtr costs, IntPtr lengths, IntPtr paths, UIntPtr paths_capacity,
            out UIntPtr paths_needed);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, EntryPoint = "throng_plan_batch")]
        internal static extern Status throng_plan_batch_without_nav(
            GridHandle grid, IntPtr nav, byte[] planner, IntPtr starts, IntPtr goals,
            UIntPtr count, IntPtr costs, IntPtr lengths, IntPtr paths, UIntPtr paths_capacity,
            out UIntPtr paths_needed);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_new(
            GridHandle grid, NavHandle nav, byte[] config_json, out SimHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, EntryPoint = "throng_sim_new")]
        internal static extern Status throng_sim_new_without_nav(
            GridHandle grid, IntPtr nav, byte[] config_json, out SimHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_from_scenario(byte[] path, out SimHandle @out, out ulong ticks);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_free(IntPtr sim);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_step(SimHandle sim, out TickEvents events);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_tick(SimHandle sim, out ulong tick);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_state_hash(SimHandle sim, out ulong hash);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_summary_json(
            SimHandle sim, byte[] buffer, UIntPtr capacity, out UIntPtr needed);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_snapshot(
            SimHandle sim, IntPtr buffer, UIntPtr capacity, out UIntPtr needed);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_restore(SimHandle sim, IntPtr bytes, UIntPtr len);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_from_snapshot(IntPtr bytes, UIntPtr len, out SimHandle @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_add_agents(
            SimHandle sim, IntPtr starts, IntPtr goals, UIntPtr count, IntPtr ids);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_remove_agent(SimHandle sim, ulong id);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_goal(SimHandle sim, ulong id, uint goal);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_controlled(SimHandle sim, ulong id, byte controlled);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_priority(SimHandle sim, ulong id, byte priority);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_planner(SimHandle sim, ulong id, byte[] planner);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_walkable(SimHandle sim, uint x, uint y, byte walkable);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_set_cost(SimHandle sim, uint x, uint y, float cost);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_read_map(
            SimHandle sim, IntPtr walkable, IntPtr costs, UIntPtr capacity, out UIntPtr cells);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_step_with_actions(
            SimHandle sim, IntPtr ids, IntPtr actions, UIntPtr count, IntPtr outcomes,
            out TickEvents events);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_agent_count(SimHandle sim, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_read_agents(
            SimHandle sim, IntPtr ids, IntPtr cells, IntPtr states, UIntPtr capacity,
            out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_agent(
            SimHandle sim, ulong id, out uint cell, out uint goal, out byte state);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_read_events(
            SimHandle sim, uint kinds, IntPtr events, UIntPtr capacity, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_read_goals(
            SimHandle sim, IntPtr goals, UIntPtr capacity, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_read_next_cells(
            SimHandle sim, IntPtr cells, UIntPtr capacity, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_agent_route(
            SimHandle sim, ulong id, IntPtr cells, UIntPtr capacity, out UIntPtr length);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_step_begin(SimHandle sim);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_step_ready(SimHandle sim, out byte ready);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status throng_sim_step_finish(SimHandle sim, out TickEvents events);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr throng_last_error();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr throng_status_name(int status);
    }
}
