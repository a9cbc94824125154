/* A crowd of two on an 8 x 3 map, stepped until both arrive. */
#include <stdint.h>
#include <stdio.h>

#include "throng.h"

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, throng_last_error());
    return 1;
}

int main(void) {
    /* Cells row by row (cell id = y * width + x): a wall with a gap at each end. */
    const char *rows[3] = {"........", ".######.", "........"};
    uint8_t cells[24];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 8; x++)
            cells[y * 8 + x] = rows[y][x] == '.';
    ThrongGrid *grid = NULL;
    if (throng_grid_from_cells(8, 3, cells, 24, 8, &grid) != THRONG_STATUS_OK)
        return fail("grid");
    ThrongSim *sim = NULL;
    if (throng_sim_new(grid, NULL, "{\"planner\": \"jps\"}", &sim) != THRONG_STATUS_OK)
        return fail("simulation");
    throng_grid_free(grid); /* the simulation keeps its own copy */

    uint32_t starts[2] = {0, 16}, goals[2] = {23, 7}; /* (0,0) -> (7,2) and (0,2) -> (7,0) */
    uint64_t ids[2];
    if (throng_sim_add_agents(sim, starts, goals, 2, ids) != THRONG_STATUS_OK)
        return fail("agents");
    ThrongTickEvents events = {0};
    for (int tick = 0; tick < 100 && !events.finished; tick++)
        if (throng_sim_step(sim, &events) != THRONG_STATUS_OK)
            return fail("step");

    uint32_t at[2];
    size_t count = 0;
    if (throng_sim_read_agents(sim, NULL, at, NULL, 2, &count) != THRONG_STATUS_OK)
        return fail("read");
    for (size_t i = 0; i < count; i++)
        printf("agent %zu at (%u, %u)\n", i, at[i] % 8, at[i] / 8);
    printf("all arrived after %u ticks\n", (unsigned)events.tick + 1);
    throng_sim_free(sim);
    return 0;
}
