/*
 * The C ABI exercised from C, as an embedder would: built by tests/c_program.rs with the system
 * compiler against libthrong_capi and run under valgrind (no leak, no invalid read or write).
 *
 * Usage: throng_test ROOT HASH
 *   ROOT  the repository (for sims/ and its maps)
 *   HASH  the final state hash `throng run sims/mapf-random-32-32-10.toml` records (hex)
 *
 * Prints "N passed, 0 failed" and exits 0, or names the first failed check and exits 1.
 */
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#include <inttypes.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "throng.h"

static int checks = 0;

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                    \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, "\n0 passed, 1 failed\n");                                         \
        exit(1);                                                                           \
    } while (0)

/* A call that must succeed. */
#define OK(call)                                                                           \
    do {                                                                                   \
        ThrongStatus s_ = (call);                                                          \
        if (s_ != THRONG_STATUS_OK)                                                        \
            FAIL("%s gave %s: %s", #call, throng_status_name(s_), throng_last_error());    \
        checks++;                                                                          \
    } while (0)

/* A call that must fail with `status`, leaving a message. */
#define FAILS(call, status)                                                                \
    do {                                                                                   \
        ThrongStatus s_ = (call);                                                          \
        if (s_ != (status))                                                                \
            FAIL("%s gave %s, expected %s (%s)", #call, throng_status_name(s_),            \
                 throng_status_name(status), throng_last_error());                         \
        if (strlen(throng_last_error()) == 0)                                              \
            FAIL("%s left no message", #call);                                             \
        checks++;                                                                          \
    } while (0)

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond))                                                                       \
            FAIL(__VA_ARGS__);                                                             \
        checks++;                                                                          \
    } while (0)

static char *path_of(const char *root, const char *rest) {
    size_t n = strlen(root) + strlen(rest) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", root, rest);
    return p;
}

/* Errors: every bad argument gives its status and a message, never a crash. */
static void errors(const char *root) {
    ThrongGrid *grid = NULL;
    FAILS(throng_grid_load(NULL, 8, &grid), THRONG_STATUS_NULL_POINTER);
    FAILS(throng_grid_load("/nonexistent/x.map", 8, &grid), THRONG_STATUS_IO);
    CHECK(strstr(throng_last_error(), "/nonexistent/x.map: no such file") != NULL,
          "the message names the file: %s", throng_last_error());
    FAILS(throng_grid_load("/dev/zero", 8, &grid), THRONG_STATUS_IO);
    CHECK(strstr(throng_last_error(), "/dev/zero: is a device or special file, not a regular file") != NULL,
          "a device is refused unread: %s", throng_last_error());
    char *scen = path_of(root, "sims/maps/arena.map.scen");
    FAILS(throng_grid_load(scen, 8, &grid), THRONG_STATUS_PARSE);
    free(scen);
    uint8_t cells[6] = {1, 1, 1, 0, 1, 1};
    FAILS(throng_grid_from_cells(3, 3, cells, 6, 8, &grid), THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_grid_from_cells(3, 2, cells, 6, 6, &grid), THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_grid_from_cells(3, 2, NULL, 6, 8, &grid), THRONG_STATUS_NULL_POINTER);
    FAILS(throng_grid_from_cells(3, 2, cells, 6, 8, NULL), THRONG_STATUS_NULL_POINTER);
    OK(throng_grid_from_cells(3, 2, cells, 6, 8, &grid));
    CHECK(strlen(throng_last_error()) == 0, "a success clears the message");
    uint8_t walkable = 9;
    FAILS(throng_grid_is_walkable(grid, 3, 0, &walkable), THRONG_STATUS_OUT_OF_RANGE);
    OK(throng_grid_is_walkable(grid, 0, 1, &walkable));
    CHECK(walkable == 0, "cell (0, 1) is blocked");
    FAILS(throng_grid_size(NULL, NULL, NULL), THRONG_STATUS_NULL_POINTER);

    /* Planning: cells outside the grid, blocked cells, unknown planners, short buffers. */
    uint32_t starts[2] = {0, 0}, goals[2] = {5, 6};
    double costs[2];
    uint32_t lengths[2], path[16];
    size_t needed = 0;
    FAILS(throng_plan_batch(grid, NULL, "astar", starts, goals, 2, costs, lengths, path, 16,
                            &needed),
          THRONG_STATUS_OUT_OF_RANGE);
    CHECK(strstr(throng_last_error(), "query 1") != NULL, "the message names the query: %s",
          throng_last_error());
    goals[1] = 3;
    FAILS(throng_plan_batch(grid, NULL, "astar", starts, goals, 2, costs, lengths, path, 16,
                            &needed),
          THRONG_STATUS_INVALID_ARGUMENT);
    goals[1] = 4;
    FAILS(throng_plan_batch(grid, NULL, "teleport", starts, goals, 2, costs, lengths, path, 16,
                            &needed),
          THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_plan_batch(grid, NULL, "astar", starts, goals, 2, costs, lengths, path, 2,
                            &needed),
          THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(needed == 6, "two paths of 3 cells: %zu", needed);
    OK(throng_plan_batch(grid, NULL, "astar", starts, goals, 2, costs, lengths, path, needed,
                         &needed));
    CHECK(lengths[0] == 3 && path[0] == 0 && path[2] == 5, "the first path 0 -> 5");

    /* Simulations: bad settings, unknown agents, short arrays. */
    ThrongSim *sim = NULL;
    FAILS(throng_sim_new(grid, NULL, "{\"planner\": \"teleport\"}", &sim),
          THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_sim_new(grid, NULL, "{\"colour\": 1}", &sim), THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_sim_new(grid, NULL, "[1, 2]", &sim), THRONG_STATUS_INVALID_ARGUMENT);
    OK(throng_sim_new(grid, NULL, "{\"conflicts\": \"pibt\"}", &sim));
    uint32_t agent_starts[2] = {0, 0}, agent_goals[2] = {5, THRONG_NO_GOAL};
    uint64_t ids[2];
    FAILS(throng_sim_add_agents(sim, agent_starts, agent_goals, 2, ids), THRONG_STATUS_CELL_OCCUPIED);
    /* The agent in the way by the 64-bit id a caller holds, not Rust's debug form. */
    CHECK(strstr(throng_last_error(), "occupied by agent 0") != NULL &&
              strstr(throng_last_error(), "AgentId") == NULL,
          "the message names the agent by its id: %s", throng_last_error());
    size_t count = 99;
    OK(throng_sim_agent_count(sim, &count));
    CHECK(count == 0, "a refused batch adds no agent");
    agent_starts[1] = 3;
    FAILS(throng_sim_add_agents(sim, agent_starts, agent_goals, 2, ids), THRONG_STATUS_INVALID_ARGUMENT);
    agent_starts[1] = 7;
    FAILS(throng_sim_add_agents(sim, agent_starts, agent_goals, 2, ids), THRONG_STATUS_OUT_OF_RANGE);
    agent_starts[1] = 2;
    OK(throng_sim_add_agents(sim, agent_starts, agent_goals, 2, ids));
    uint32_t at[1];
    FAILS(throng_sim_read_agents(sim, NULL, at, NULL, 1, &count), THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(count == 2, "two live agents");
    FAILS(throng_sim_set_walkable(sim, 2, 0, 0), THRONG_STATUS_CELL_OCCUPIED);
    FAILS(throng_sim_set_walkable(sim, 9, 9, 0), THRONG_STATUS_OUT_OF_RANGE);
    OK(throng_sim_remove_agent(sim, ids[1]));
    FAILS(throng_sim_remove_agent(sim, ids[1]), THRONG_STATUS_UNKNOWN_AGENT);
    uint32_t left[2] = {99, 99};
    OK(throng_sim_read_agents(sim, NULL, left, NULL, 2, &count));
    CHECK(count == 1 && left[0] == agent_starts[0] && left[1] == 99,
          "cells alone: the live agent's, the removed one's slot left out");
    FAILS(throng_sim_set_goal(sim, ids[1], 1), THRONG_STATUS_UNKNOWN_AGENT);
    FAILS(throng_sim_set_goal(sim, ids[0], 600), THRONG_STATUS_OUT_OF_RANGE);
    int32_t actions[2] = {THRONG_ACTION_EAST, 42};
    FAILS(throng_sim_step_with_actions(sim, ids, actions, 2, NULL, NULL), THRONG_STATUS_OUT_OF_RANGE);
    uint64_t twice[2] = {ids[0], ids[0]};
    actions[1] = THRONG_ACTION_WAIT;
    FAILS(throng_sim_step_with_actions(sim, twice, actions, 2, NULL, NULL), THRONG_STATUS_INVALID_ARGUMENT);
    char small[4];
    FAILS(throng_sim_summary_json(sim, small, sizeof small, &needed), THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(needed > sizeof small, "the summary needs more than 4 bytes");

    /* Handles: the wrong kind, used after free, freed twice. */
    FAILS(throng_grid_size((const ThrongGrid *)sim, NULL, NULL), THRONG_STATUS_INVALID_HANDLE);
    FAILS(throng_sim_step((ThrongSim *)grid, NULL), THRONG_STATUS_INVALID_HANDLE);
    OK(throng_sim_free(sim));
    FAILS(throng_sim_step(sim, NULL), THRONG_STATUS_INVALID_HANDLE);
    FAILS(throng_sim_free(sim), THRONG_STATUS_INVALID_HANDLE);
    OK(throng_grid_free(grid));
    FAILS(throng_grid_size(grid, NULL, NULL), THRONG_STATUS_INVALID_HANDLE);
    OK(throng_grid_free(NULL));
    int local = 0;
    FAILS(throng_grid_free((ThrongGrid *)&local), THRONG_STATUS_INVALID_HANDLE);
}

static int adjacent(uint32_t a, uint32_t b, uint32_t width) {
    int dx = (int)(a % width) - (int)(b % width), dy = (int)(a / width) - (int)(b / width);
    return (dx != 0 || dy != 0) && abs(dx) <= 1 && abs(dy) <= 1;
}

/* Batch planning against the optimal lengths of a shipped .scen file, with A* and JPS, and the
 * navigation points built, saved, loaded and planned through. */
static void plans(const char *root, const char *tmp) {
    char *map = path_of(root, "sims/maps/arena.map");
    char *scen_path = path_of(root, "sims/maps/arena.map.scen");
    ThrongGrid *grid = NULL;
    OK(throng_grid_load(map, 8, &grid));
    uint32_t width = 0, height = 0;
    OK(throng_grid_size(grid, &width, &height));
    CHECK(width == 49 && height == 49, "arena is 49 x 49: %u x %u", width, height);

    FILE *f = fopen(scen_path, "r");
    CHECK(f != NULL, "open %s", scen_path);
    char line[512], name[256];
    CHECK(fgets(line, sizeof line, f) != NULL, "the version line");
    size_t cap = 256, n = 0;
    uint32_t *starts = malloc(cap * sizeof *starts), *goals = malloc(cap * sizeof *goals);
    double *optimal = malloc(cap * sizeof *optimal);
    int bucket, w, h, sx, sy, gx, gy;
    double opt;
    while (fscanf(f, "%d %255s %d %d %d %d %d %d %lf", &bucket, name, &w, &h, &sx, &sy, &gx, &gy,
                  &opt) == 9) {
        CHECK(n < cap, "at most %zu queries", cap);
        starts[n] = (uint32_t)sy * width + (uint32_t)sx;
        goals[n] = (uint32_t)gy * width + (uint32_t)gx;
        optimal[n] = opt;
        n++;
    }
    fclose(f);
    CHECK(n == 130, "130 queries in arena.map.scen: %zu", n);

    double *costs = malloc(n * sizeof *costs);
    uint32_t *lengths = malloc(n * sizeof *lengths);
    const char *planners[3] = {"astar", "jps", "nav"};
    ThrongNav *built = NULL, *loaded = NULL;
    OK(throng_nav_build(grid, &built));
    char *nav_path = path_of(tmp, "arena.nav");
    OK(throng_nav_save(built, nav_path));
    OK(throng_nav_free(built));
    OK(throng_nav_load(nav_path, grid, &loaded));
    for (int p = 0; p < 3; p++) {
        size_t needed = 0;
        ThrongNav *nav = p == 2 ? loaded : NULL;
        /* First the sizes (no path buffer), then the paths. */
        OK(throng_plan_batch(grid, nav, planners[p], starts, goals, n, costs, lengths, NULL, 0,
                             &needed));
        uint32_t *paths = malloc(needed * sizeof *paths);
        OK(throng_plan_batch(grid, nav, planners[p], starts, goals, n, costs, lengths, paths,
                             needed, &needed));
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            CHECK(costs[i] != THRONG_NO_PATH && lengths[i] > 0, "%s: query %zu has a path",
                  planners[p], i);
            double tolerance = 1e-6 * (1.0 + optimal[i]);
            if (p < 2)
                CHECK(fabs(costs[i] - optimal[i]) <= tolerance, "%s: query %zu costs %f, optimal %f",
                      planners[p], i, costs[i], optimal[i]);
            else
                CHECK(costs[i] >= optimal[i] - tolerance, "nav: query %zu beats the optimum", i);
            const uint32_t *path = paths + at;
            CHECK(path[0] == starts[i] && path[lengths[i] - 1] == goals[i],
                  "%s: query %zu runs start to goal", planners[p], i);
            for (uint32_t k = 1; k < lengths[i]; k++) {
                uint8_t walkable = 0;
                OK(throng_grid_is_walkable(grid, path[k] % width, path[k] / width, &walkable));
                CHECK(walkable && adjacent(path[k - 1], path[k], width),
                      "%s: query %zu step %u is a legal move", planners[p], i, k);
            }
            at += lengths[i];
        }
        CHECK(at == needed, "the paths fill the buffer");
        free(paths);
    }

    /* A navigation file is refused for another map. */
    uint8_t open_cells[16];
    memset(open_cells, 1, sizeof open_cells);
    ThrongGrid *other = NULL;
    OK(throng_grid_from_cells(4, 4, open_cells, 16, 8, &other));
    ThrongNav *wrong = NULL;
    FAILS(throng_nav_load(nav_path, other, &wrong), THRONG_STATUS_PARSE);
    CHECK(wrong == NULL, "no handle for a refused file");
    OK(throng_grid_free(other));

    OK(throng_nav_free(loaded));
    OK(throng_grid_free(grid));
    remove(nav_path);
    free(nav_path);
    free(costs);
    free(lengths);
    free(starts);
    free(goals);
    free(optimal);
    free(map);
    free(scen_path);
}

/* A shipped scenario played through the ABI ends where `throng run` ends. */
static void scenario(const char *root, const char *want_hash) {
    char *path = path_of(root, "sims/mapf-random-32-32-10.toml");
    ThrongSim *sim = NULL;
    uint64_t ticks = 0;
    OK(throng_sim_from_scenario(path, &sim, &ticks));
    CHECK(ticks == 300, "the scenario plays at most 300 ticks");
    ThrongTickEvents events;
    uint64_t played = 0;
    while (played < ticks) {
        OK(throng_sim_step(sim, &events));
        played++;
        if (events.finished)
            break;
    }
    CHECK(played == 58, "every agent arrives in 58 ticks: %" PRIu64, played);
    CHECK(events.at_goal == 100 && events.agents == 100, "100 agents at their goal");
    uint64_t hash = 0;
    OK(throng_sim_state_hash(sim, &hash));
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, hash);
    CHECK(strcmp(hex, want_hash) == 0, "final state hash %s, throng run's %s", hex, want_hash);
    CHECK(events.state_hash == hash, "the last tick's hash is the state's");

    size_t needed = 0;
    FAILS(throng_sim_summary_json(sim, NULL, 0, &needed), THRONG_STATUS_BUFFER_TOO_SMALL);
    char *json = malloc(needed);
    OK(throng_sim_summary_json(sim, json, needed, &needed));
    CHECK(strlen(json) + 1 == needed, "the summary fills the buffer");
    char want[64];
    snprintf(want, sizeof want, "\"final_state_hash_hex\":\"%s\"", want_hash);
    CHECK(strstr(json, want) != NULL, "the summary has the hash: %s", json);
    CHECK(strstr(json, "\"scenario\":\"mapf-random-32-32-10\"") != NULL, "the summary names the scenario");
    free(json);
    OK(throng_sim_free(sim));
    free(path);
}

/* A crowd on a map made from bytes, for a few hundred ticks, with agents added and removed,
 * goals changed, walls put up and taken down, one agent driven from outside: returns the final
 * state hash. Checks on every tick that agents stand on walkable cells, one per cell. */
#define SIDE 48
static uint64_t crowd(int ticks) {
    uint8_t cells[SIDE * SIDE];
    for (uint32_t y = 0; y < SIDE; y++)
        for (uint32_t x = 0; x < SIDE; x++)
            cells[y * SIDE + x] = !(x % 12 == 6 && y % 8 != 4); /* walls with gaps */
    ThrongGrid *grid = NULL;
    OK(throng_grid_from_cells(SIDE, SIDE, cells, sizeof cells, 8, &grid));
    ThrongSim *sim = NULL;
    OK(throng_sim_new(grid, NULL, "{\"planner\": \"jps\", \"conflicts\": \"pibt\", \"seed\": 3}", &sim));
    OK(throng_grid_free(grid)); /* the simulation keeps its own copy */

    enum { AGENTS = 120 };
    uint32_t starts[AGENTS], goals[AGENTS];
    uint64_t ids[AGENTS];
    for (uint32_t i = 0; i < AGENTS; i++) {
        /* Columns 1, 5, ..., 45: none in a wall (x % 12 == 6). Rows 0..9 to rows 47..38. */
        starts[i] = (i / 12) * SIDE + (i % 12) * 4 + 1;
        goals[i] = (SIDE - 1 - i / 12) * SIDE + (11 - i % 12) * 4 + 1;
    }
    OK(throng_sim_add_agents(sim, starts, goals, AGENTS, ids));
    uint64_t driven = ids[0];
    OK(throng_sim_set_controlled(sim, driven, 1));

    uint64_t *read_ids = malloc(2 * AGENTS * sizeof *read_ids);
    uint32_t *read_cells = malloc(2 * AGENTS * sizeof *read_cells);
    uint32_t *only_cells = malloc(2 * AGENTS * sizeof *only_cells);
    uint8_t *read_states = malloc(2 * AGENTS * sizeof *read_states);
    uint8_t *seen = calloc(SIDE * SIDE, 1);
    uint32_t next_slot = 1, added = 0, removed = 0, walls = 0;
    ThrongTickEvents events;
    for (int t = 0; t < ticks; t++) {
        if (t % 10 == 5) { /* one agent leaves, a new one comes in at the top */
            OK(throng_sim_remove_agent(sim, ids[next_slot]));
            removed++;
            uint32_t start = (uint32_t)(t / 10 % 12) * 4 + 1, goal = (SIDE - 1) * SIDE + start;
            ThrongStatus s = throng_sim_add_agents(sim, &start, &goal, 1, &ids[next_slot]);
            CHECK(s == THRONG_STATUS_OK || s == THRONG_STATUS_CELL_OCCUPIED, "add: %s",
                  throng_last_error());
            if (s == THRONG_STATUS_OK)
                added++;
            else
                ids[next_slot] = driven; /* taken: keep a live id in the slot */
            next_slot = next_slot % (AGENTS - 1) + 1;
        }
        if (t % 25 == 10) { /* a door shuts or opens in a wall */
            uint32_t x = 6 + 12 * (uint32_t)(t / 25 % 4), y = 4;
            uint8_t walkable = 0;
            ThrongStatus s = throng_sim_set_walkable(sim, x, y, (uint8_t)(t / 25 % 2));
            CHECK(s == THRONG_STATUS_OK || s == THRONG_STATUS_CELL_OCCUPIED, "door: %s",
                  throng_last_error());
            (void)walkable;
            walls += s == THRONG_STATUS_OK;
        }
        if (t % 40 == 20) /* everyone turns back */
            for (uint32_t i = 1; i < AGENTS; i++) {
                ThrongStatus s = throng_sim_set_goal(sim, ids[i], starts[i]);
                CHECK(s == THRONG_STATUS_OK, "goal: %s", throng_last_error());
            }
        if (t % 3 == 0) {
            int32_t action = t % 6 == 0 ? THRONG_ACTION_EAST : THRONG_ACTION_WEST, outcome = -1;
            OK(throng_sim_step_with_actions(sim, &driven, &action, 1, &outcome, &events));
            CHECK(outcome >= 0 && outcome <= 3, "an outcome code");
        } else {
            OK(throng_sim_step(sim, &events));
        }
        CHECK(events.tick == (uint64_t)t, "tick %d reported as %" PRIu64, t, events.tick);
        size_t count = 0;
        OK(throng_sim_read_agents(sim, read_ids, read_cells, read_states, 2 * AGENTS, &count));
        size_t only_count = 0;
        OK(throng_sim_read_agents(sim, NULL, only_cells, NULL, 2 * AGENTS, &only_count));
        CHECK(only_count == count && memcmp(only_cells, read_cells, count * sizeof *read_cells) == 0,
              "tick %d: cells read alone as with ids and states", t);
        CHECK(count == events.agents, "the agents read are the live ones");
        memset(seen, 0, SIDE * SIDE);
        for (size_t i = 0; i < count; i++) {
            CHECK(read_cells[i] < SIDE * SIDE && !seen[read_cells[i]], "one agent per cell");
            seen[read_cells[i]] = 1;
            CHECK(read_states[i] <= 5, "a state code");
        }
    }
    CHECK(added > 10 && removed > 10 && walls > 3, "agents came and went, doors moved");
    uint32_t cell = 0, goal = 0;
    uint8_t state = 9;
    OK(throng_sim_agent(sim, ids[AGENTS - 1], &cell, &goal, &state));
    CHECK(goal == starts[AGENTS - 1], "the last goal given");
    uint64_t hash = 0;
    OK(throng_sim_state_hash(sim, &hash));
    free(read_ids);
    free(read_cells);
    free(only_cells);
    free(read_states);
    free(seen);
    OK(throng_sim_free(sim));
    return hash;
}

/* What a game reads each frame: events agent by agent, goals, next cells, routes; a goal
 * cleared; the ABI check. An 8 x 2 room, two agents walking apart along its rows. */
static void frame_reads(void) {
    OK(throng_check_abi(THRONG_ABI_VERSION));
    CHECK(throng_abi_version() == THRONG_ABI_VERSION, "the library's ABI is the header's");
    FAILS(throng_check_abi(THRONG_ABI_VERSION + 1), THRONG_STATUS_ABI_MISMATCH);
    CHECK(strstr(throng_last_error(), "ABI version") != NULL, "the message names the versions");

    uint8_t cells[16];
    memset(cells, 1, sizeof cells);
    ThrongGrid *grid = NULL;
    OK(throng_grid_from_cells(8, 2, cells, 16, 4, &grid));
    ThrongSim *sim = NULL;
    OK(throng_sim_new(grid, NULL, NULL, &sim));
    uint32_t starts[2] = {0, 15}, goals[2] = {7, 8};
    uint64_t ids[2];
    OK(throng_sim_add_agents(sim, starts, goals, 2, ids));

    size_t count = 99;
    OK(throng_sim_read_events(sim, THRONG_EVENTS_ALL, NULL, 0, &count));
    CHECK(count == 0, "the calls show with the tick that follows them: %zu", count);
    ThrongEvent events[64];

    ThrongTickEvents tick;
    OK(throng_sim_step(sim, &tick));
    OK(throng_sim_read_events(sim, THRONG_EVENTS_ALL, NULL, 0, &count));
    size_t all = count;
    /* Added twice (the calls before the tick), two plans, two moves. */
    CHECK(all == 6, "added, planned and moved, twice: %zu", all);
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_ADDED, events, 64, &count));
    CHECK(count == 2 && events[0].agent == ids[0] && events[0].cell == 0 && events[1].cell == 15,
          "the agents added, on their starts");
    FAILS(throng_sim_read_events(sim, THRONG_EVENTS_ALL, events, all - 1, &count),
          THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(count == all, "a short buffer still gets the count");
    OK(throng_sim_read_events(sim, THRONG_EVENTS_ALL, events, 64, &count));
    int found = 0, moved = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t cell = 0;
        if (events[i].kind == THRONG_EVENT_PATH_FOUND) {
            found++;
            CHECK(events[i].detail == THRONG_PLAN_REASON_NEW_GOAL, "planned for a new goal");
            CHECK(events[i].cell == (events[i].agent == ids[0] ? 7u : 8u), "the plan's goal");
        }
        if (events[i].kind == THRONG_EVENT_MOVED) {
            moved++;
            OK(throng_sim_agent(sim, events[i].agent, &cell, NULL, NULL));
            CHECK(cell == events[i].cell, "a move ends where the agent stands");
        }
        CHECK(events[i].reserved == 0, "reserved is 0");
    }
    CHECK(found == 2 && moved == 2, "two paths found, two moves: %d, %d", found, moved);
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_MOVED, events, 64, &count));
    CHECK(count == 2 && events[0].kind == THRONG_EVENT_MOVED && events[1].kind == THRONG_EVENT_MOVED,
          "the mask keeps the moves only: %zu", count);

    uint32_t read_goals[2] = {0, 0}, next[2] = {0, 0}, route[8];
    OK(throng_sim_read_goals(sim, read_goals, 2, &count));
    CHECK(count == 2 && read_goals[0] == 7 && read_goals[1] == 8, "the goals, in slot order");
    FAILS(throng_sim_read_goals(sim, read_goals, 1, &count), THRONG_STATUS_BUFFER_TOO_SMALL);
    OK(throng_sim_read_next_cells(sim, next, 2, &count));
    size_t length = 0;
    OK(throng_sim_agent_route(sim, ids[0], NULL, 0, &length));
    CHECK(length == 6, "agent 0 on cell 1 has 6 cells ahead: %zu", length);
    FAILS(throng_sim_agent_route(sim, ids[0], route, 5, &length), THRONG_STATUS_BUFFER_TOO_SMALL);
    OK(throng_sim_agent_route(sim, ids[0], route, 8, &length));
    CHECK(route[0] == next[0] && route[0] == 2 && route[length - 1] == 7,
          "the route starts at the next cell and ends at the goal");
    FAILS(throng_sim_agent_route(sim, ids[0] + 7, route, 8, &length), THRONG_STATUS_UNKNOWN_AGENT);
    FAILS(throng_sim_read_events(sim, THRONG_EVENTS_ALL, events, 64, NULL),
          THRONG_STATUS_NULL_POINTER);

    /* Clearing a goal: an event, no route, no next cell, idle. */
    OK(throng_sim_set_goal(sim, ids[0], THRONG_NO_GOAL));
    OK(throng_sim_step(sim, &tick));
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_GOAL_SET, events, 64, &count));
    CHECK(count == 1 && events[0].agent == ids[0] && events[0].cell == THRONG_NO_CELL,
          "the goal cleared is an event: %zu", count);
    uint32_t cell = 0, goal = 0;
    uint8_t state = 9;
    OK(throng_sim_agent(sim, ids[0], &cell, &goal, &state));
    CHECK(goal == THRONG_NO_GOAL && state == 0 && cell == 1, "idle where it stood");
    OK(throng_sim_agent_route(sim, ids[0], route, 8, &length));
    CHECK(length == 0, "no route");
    OK(throng_sim_read_next_cells(sim, next, 2, &count));
    CHECK(next[0] == THRONG_NO_CELL && next[1] != THRONG_NO_CELL, "no next cell for the idle agent");

    /* Per-agent settings from code. */
    OK(throng_sim_set_priority(sim, ids[1], 7));
    OK(throng_sim_set_planner(sim, ids[1], "astar"));
    OK(throng_sim_step(sim, &tick));
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_PATH_FOUND, events, 64, &count));
    CHECK(count == 1 && events[0].agent == ids[1], "a new planner plans again: %zu", count);
    OK(throng_sim_set_planner(sim, ids[1], NULL));
    FAILS(throng_sim_set_planner(sim, ids[1], "teleport"), THRONG_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(throng_last_error(), "astar") != NULL, "the message lists the planners");
    FAILS(throng_sim_set_priority(sim, ids[1] + 9, 1), THRONG_STATUS_UNKNOWN_AGENT);

    /* A map edit is an event about a cell, with no agent. */
    OK(throng_sim_set_walkable(sim, 4, 0, 0));
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_CELL_CHANGED, events, 64, &count));
    CHECK(count == 0, "edits show after the next tick");
    OK(throng_sim_step(sim, &tick));
    OK(throng_sim_read_events(sim, 1u << THRONG_EVENT_CELL_CHANGED, events, 64, &count));
    CHECK(count == 1 && events[0].agent == THRONG_NO_AGENT && events[0].cell == 4 &&
              events[0].detail == 0,
          "cell 4 blocked: %zu", count);

    /* Terrain costs: mud ahead of agent 1 (row 1, heading west to cell 8) sends it round. */
    OK(throng_sim_set_cost(sim, 1, 1, 50.0f));
    OK(throng_sim_step(sim, &tick));
    OK(throng_sim_read_events(sim, (1u << THRONG_EVENT_PATH_FOUND) | (1u << THRONG_EVENT_CELL_CHANGED),
                              events, 64, &count));
    CHECK(count == 2 && events[0].kind == THRONG_EVENT_CELL_CHANGED && events[0].detail == 2 &&
              events[0].cell == 9,
          "the cost edit is an event: %zu", count);
    CHECK(events[1].kind == THRONG_EVENT_PATH_FOUND && events[1].agent == ids[1] &&
              events[1].detail == THRONG_PLAN_REASON_MAP_CHANGED,
          "agent 1 plans again for the mud");
    OK(throng_sim_agent_route(sim, ids[1], route, 8, &length));
    for (size_t i = 0; i < length; i++)
        CHECK(route[i] != 9, "the new route goes round the mud");
    CHECK(length > 0 && route[length - 1] == 8, "and still ends at the goal");
    uint8_t walkable[16];
    float costs[16];
    FAILS(throng_sim_read_map(sim, walkable, costs, 15, &count), THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(count == 16, "16 cells");
    OK(throng_sim_read_map(sim, walkable, costs, 16, &count));
    CHECK(walkable[4] == 0 && walkable[5] == 1 && costs[9] == 50.0f && costs[10] == 1.0f,
          "the simulation's map as edited");
    FAILS(throng_sim_set_cost(sim, 2, 1, 0.0f), THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_sim_set_cost(sim, 2, 1, NAN), THRONG_STATUS_INVALID_ARGUMENT);
    FAILS(throng_sim_set_cost(sim, 8, 0, 2.0f), THRONG_STATUS_OUT_OF_RANGE);
    OK(throng_grid_set_cost(grid, 3, 1, 2.5f));
    float cost = 0;
    OK(throng_grid_cost(grid, 3, 1, &cost));
    CHECK(cost == 2.5f, "a grid's cost read back: %f", cost);
    OK(throng_grid_cost(grid, 1, 1, &cost));
    CHECK(cost == 1.0f, "the grid did not see the simulation's edit");
    OK(throng_sim_free(sim));
    OK(throng_grid_free(grid));
}

/* A frame's worth of other work between polls: a tight loop of calls would starve the step's
 * worker under valgrind, which runs one thread at a time. */
static void pause_briefly(void) {
    struct timespec t = {0, 100000};
    nanosleep(&t, NULL);
}

/* A render thread reading the crowd while a step is in flight. */
struct reader {
    ThrongSim *sim;
    volatile int stop;
    int reads, failures;
    size_t agents;
};

static void *read_while_stepping(void *arg) {
    struct reader *r = arg;
    uint32_t *cells = malloc(r->agents * sizeof *cells);
    while (!r->stop) {
        size_t count = 0;
        ThrongStatus s = throng_sim_read_agents(r->sim, NULL, cells, NULL, r->agents, &count);
        if (s != THRONG_STATUS_OK || count != r->agents)
            r->failures++;
        r->reads++;
        pause_briefly();
    }
    free(cells);
    return NULL;
}

/* A step that overlaps the caller's frame: the same run as throng_sim_step, reads of the tick
 * before while it runs (from this thread and another), everything else refused until finished;
 * a simulation's own threads. */
static void split_steps(const char *root, const char *want_hash) {
    char *path = path_of(root, "sims/mapf-random-32-32-10.toml");
    ThrongSim *sim = NULL;
    uint64_t ticks = 0;
    OK(throng_sim_from_scenario(path, &sim, &ticks));
    FAILS(throng_sim_step_finish(sim, NULL), THRONG_STATUS_INVALID_ARGUMENT);
    struct reader r = {sim, 0, 0, 0, 100};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, read_while_stepping, &r) == 0, "a reader thread");
    ThrongTickEvents events;
    uint64_t played = 0, before = 0, hash_before = 0, now = 0;
    uint32_t cells[100];
    size_t count = 0;
    while (played < ticks) {
        OK(throng_sim_state_hash(sim, &hash_before));
        OK(throng_sim_read_agents(sim, NULL, cells, NULL, 100, &count));
        uint32_t first = cells[0];
        OK(throng_sim_step_begin(sim));
        /* The tick before, while the step runs. */
        OK(throng_sim_tick(sim, &before));
        CHECK(before == played, "the tick before: %" PRIu64, before);
        OK(throng_sim_state_hash(sim, &now));
        CHECK(now == hash_before, "the hash before");
        OK(throng_sim_read_agents(sim, NULL, cells, NULL, 100, &count));
        CHECK(count == 100 && cells[0] == first, "the cells before");
        FAILS(throng_sim_step_begin(sim), THRONG_STATUS_BUSY);
        FAILS(throng_sim_step(sim, NULL), THRONG_STATUS_BUSY);
        FAILS(throng_sim_set_goal(sim, 0, 5), THRONG_STATUS_BUSY);
        FAILS(throng_sim_read_events(sim, THRONG_EVENTS_ALL, NULL, 0, &count), THRONG_STATUS_BUSY);
        uint8_t ready = 0;
        ThrongStatus polled = THRONG_STATUS_OK;
        while (polled == THRONG_STATUS_OK && (polled = throng_sim_step_ready(sim, &ready)) == 0 &&
               !ready)
            pause_briefly();
        CHECK(polled == THRONG_STATUS_OK && ready, "the step gets ready");
        OK(throng_sim_step_finish(sim, &events));
        played++;
        CHECK(events.tick == played - 1, "the events of the tick played");
        if (events.finished)
            break;
    }
    r.stop = 1;
    pthread_join(thread, NULL);
    CHECK(r.failures == 0 && r.reads > 0, "%d reads from another thread, %d failed", r.reads,
          r.failures);
    CHECK(played == 58, "every agent arrives in 58 ticks, as stepped at once: %" PRIu64, played);
    uint64_t hash = 0;
    OK(throng_sim_state_hash(sim, &hash));
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, hash);
    CHECK(strcmp(hex, want_hash) == 0, "final state hash %s, throng run's %s", hex, want_hash);
    /* Freed with a step in flight: the step's result is dropped, nothing leaks. */
    OK(throng_sim_step_begin(sim));
    OK(throng_sim_free(sim));
    free(path);

    /* A simulation's own threads: the same crowd on 1 and 3. */
    uint8_t cells8[64 * 64];
    memset(cells8, 1, sizeof cells8);
    ThrongGrid *grid = NULL;
    OK(throng_grid_from_cells(64, 64, cells8, sizeof cells8, 8, &grid));
    uint64_t hashes[2];
    const char *settings[2] = {"{\"threads\": 1, \"seed\": 3}", "{\"threads\": 3, \"seed\": 3}"};
    for (int k = 0; k < 2; k++) {
        OK(throng_sim_new(grid, NULL, settings[k], &sim));
        uint32_t starts[200], goals[200];
        for (uint32_t i = 0; i < 200; i++) {
            starts[i] = i * 17 % 4096;
            goals[i] = (4095 - i * 31 % 4096);
        }
        ThrongStatus s = throng_sim_add_agents(sim, starts, goals, 200, NULL);
        CHECK(s == THRONG_STATUS_OK, "200 agents: %s", throng_last_error());
        for (int t = 0; t < 40; t++) {
            OK(throng_sim_step_begin(sim));
            OK(throng_sim_step_finish(sim, &events));
        }
        OK(throng_sim_state_hash(sim, &hashes[k]));
        OK(throng_sim_free(sim));
    }
    CHECK(hashes[0] == hashes[1], "the same crowd on 1 and 3 threads");
    FAILS(throng_sim_new(grid, NULL, "{\"threads\": 0}", &sim), THRONG_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(throng_last_error(), "threads") != NULL, "the message names threads");
    OK(throng_grid_free(grid));
}

/* Snapshots: saved on tick 20 of the scenario, rolled back to in place and played again to the
 * same hashes, read into a new handle that ends on the recorded hash; bad bytes (NULL, empty,
 * truncated, flipped, another map's) refused with nothing changed; BUSY during a split step. */
static void snapshots(const char *root, const char *want_hash) {
    char *path = path_of(root, "sims/mapf-random-32-32-10.toml");
    ThrongSim *sim = NULL;
    uint64_t ticks = 0;
    OK(throng_sim_from_scenario(path, &sim, &ticks));
    ThrongTickEvents events;
    for (int t = 0; t < 20; t++)
        OK(throng_sim_step(sim, &events));
    size_t needed = 0;
    FAILS(throng_sim_snapshot(sim, NULL, 0, &needed), THRONG_STATUS_BUFFER_TOO_SMALL);
    CHECK(needed > 100, "a snapshot has a size: %zu", needed);
    uint8_t *saved = malloc(needed);
    FAILS(throng_sim_snapshot(sim, saved, needed - 1, NULL), THRONG_STATUS_BUFFER_TOO_SMALL);
    size_t len = 0;
    OK(throng_sim_snapshot(sim, saved, needed, &len));
    CHECK(len == needed, "the snapshot fills what it asked for");
    uint64_t first[20], again[20], tick = 0, hash = 0, hash_before = 0;
    for (int t = 0; t < 20; t++) {
        OK(throng_sim_step(sim, &events));
        first[t] = events.state_hash;
    }
    OK(throng_sim_restore(sim, saved, len));
    OK(throng_sim_tick(sim, &tick));
    CHECK(tick == 20, "rolled back to tick 20: %" PRIu64, tick);
    for (int t = 0; t < 20; t++) {
        OK(throng_sim_step(sim, &events));
        again[t] = events.state_hash;
    }
    CHECK(memcmp(first, again, sizeof first) == 0, "the same ticks after the rollback");

    /* Bad bytes: refused, the simulation unchanged. */
    OK(throng_sim_state_hash(sim, &hash_before));
    uint8_t *bad = malloc(len);
    memcpy(bad, saved, len);
    FAILS(throng_sim_restore(sim, NULL, 10), THRONG_STATUS_NULL_POINTER);
    FAILS(throng_sim_restore(sim, saved, 0), THRONG_STATUS_PARSE);
    FAILS(throng_sim_restore(sim, saved, len - 1), THRONG_STATUS_PARSE);
    FAILS(throng_sim_restore(sim, (const uint8_t *)"hello", 5), THRONG_STATUS_PARSE);
    for (size_t i = 0; i < len; i += 97) {
        bad[i] ^= 0x10;
        FAILS(throng_sim_restore(sim, bad, len), THRONG_STATUS_PARSE);
        bad[i] ^= 0x10;
    }
    free(bad);
    OK(throng_sim_state_hash(sim, &hash));
    CHECK(hash == hash_before, "failed restores change nothing");
    ThrongSim *copy = NULL;
    FAILS(throng_sim_from_snapshot(saved, len, NULL), THRONG_STATUS_NULL_POINTER);
    FAILS(throng_sim_from_snapshot(NULL, len, &copy), THRONG_STATUS_NULL_POINTER);
    FAILS(throng_sim_from_snapshot(saved, len / 2, &copy), THRONG_STATUS_PARSE);
    CHECK(copy == NULL, "no handle from bad bytes");
    FAILS(throng_sim_snapshot(NULL, NULL, 0, &needed), THRONG_STATUS_NULL_POINTER);

    /* Another map's snapshot: refused. */
    uint8_t cells[10 * 10];
    memset(cells, 1, sizeof cells);
    ThrongGrid *small = NULL;
    ThrongSim *other = NULL;
    OK(throng_grid_from_cells(10, 10, cells, sizeof cells, 8, &small));
    OK(throng_sim_new(small, NULL, NULL, &other));
    size_t other_len = 0;
    FAILS(throng_sim_snapshot(other, NULL, 0, &other_len), THRONG_STATUS_BUFFER_TOO_SMALL);
    uint8_t *other_bytes = malloc(other_len);
    OK(throng_sim_snapshot(other, other_bytes, other_len, NULL));
    FAILS(throng_sim_restore(sim, other_bytes, other_len), THRONG_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(throng_last_error(), "10 x 10") != NULL, "the message names the other map: %s",
          throng_last_error());
    free(other_bytes);
    OK(throng_sim_free(other));
    OK(throng_grid_free(small));

    /* A split step: BUSY. */
    OK(throng_sim_step_begin(sim));
    FAILS(throng_sim_snapshot(sim, saved, len, NULL), THRONG_STATUS_BUSY);
    FAILS(throng_sim_restore(sim, saved, len), THRONG_STATUS_BUSY);
    OK(throng_sim_step_finish(sim, &events));

    /* Rolled back once more, and played to the end: the recorded hash. */
    OK(throng_sim_restore(sim, saved, len));
    uint64_t played = 20;
    while (played < ticks) {
        OK(throng_sim_step(sim, &events));
        played++;
        if (events.finished)
            break;
    }
    CHECK(played == 58, "every agent arrives in 58 ticks: %" PRIu64, played);
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, events.state_hash);
    CHECK(strcmp(hex, want_hash) == 0, "final state hash %s, throng run's %s", hex, want_hash);
    OK(throng_sim_free(sim));

    /* A new handle from the bytes: the same run. */
    OK(throng_sim_from_snapshot(saved, len, &copy));
    played = 20;
    while (played < ticks) {
        OK(throng_sim_step(copy, &events));
        played++;
        if (events.finished)
            break;
    }
    snprintf(hex, sizeof hex, "%016" PRIx64, events.state_hash);
    CHECK(played == 58 && strcmp(hex, want_hash) == 0, "the copy ends on %s after %" PRIu64, hex,
          played);
    OK(throng_sim_free(copy));
    free(saved);
    free(path);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: throng_test ROOT HASH TMPDIR\n");
        return 2;
    }
    OK(throng_set_threads(2));
    FAILS(throng_set_threads(3), THRONG_STATUS_INVALID_ARGUMENT);
    CHECK(strlen(throng_version()) > 0, "a version");
    errors(argv[1]);
    frame_reads();
    plans(argv[1], argv[3]);
    scenario(argv[1], argv[2]);
    split_steps(argv[1], argv[2]);
    snapshots(argv[1], argv[2]);
    uint64_t first = crowd(300), second = crowd(300);
    CHECK(first == second, "the same calls give the same crowd: %016" PRIx64 " vs %016" PRIx64,
          first, second);
    printf("%d passed, 0 failed\n", checks);
    return 0;
}
