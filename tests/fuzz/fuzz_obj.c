// libFuzzer target for the OBJ parser: any bytes go into psb_obj_parse_buffer;
// what parses goes on into the topology report and the repair (with the
// default options, then again with hole filling and fitting) and the split
// into components. Nothing may
// crash, leak, read out of bounds or hit undefined behaviour, and the
// parser's promises are checked: a failure names the file and leaves nothing
// behind, a success has finite positions and indices in range.
#include <psb/psb_obj.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Aborts (a crash libFuzzer records) unless the mesh is well formed.
static void check_mesh(const psb_mesh *mesh) {
    if (mesh->kind != PSB_SHELL || mesh->point_count < 0 || mesh->triangle_count < 0) {
        abort();
    }
    for (int i = 0; i < mesh->point_count; i++) {
        psb_vec3 p = mesh->points[i];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
            abort();
        }
    }
    for (int i = 0; i < 3 * mesh->triangle_count; i++) {
        if (mesh->triangles[i] < 0 || mesh->triangles[i] >= mesh->point_count) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int pass = 0; pass < 2; pass++) {
        psb_mesh mesh;
        psb_obj_stats stats;
        psb_error err;
        psb_status status =
            psb_obj_parse_buffer("fuzz.obj", (const char *)data, size, &mesh, &stats, &err);
        if (status != PSB_OK) {
            bool zeroed = !mesh.points && !mesh.triangles && mesh.point_count == 0 &&
                          mesh.triangle_count == 0 && stats.vertices == 0;
            if (!zeroed || strncmp(err.message, "fuzz.obj:", 9) != 0) {
                abort();
            }
            return 0;
        }
        check_mesh(&mesh);
        if (stats.vertices != mesh.point_count || stats.triangles != mesh.triangle_count) {
            abort();
        }
        psb_topology topology;
        psb_mesh_topology(&mesh, &topology, &err);
        psb_repair_options options = psb_default_repair_options();
        if (pass == 1) {
            options.fill_holes = true;
            options.fit_radius = 1.0;
        }
        psb_repair_report report;
        status = psb_mesh_repair(&mesh, &options, &report, &err);
        check_mesh(&mesh); // repaired, or unchanged on failure
        if (status == PSB_OK) {
            psb_mesh_topology(&mesh, &topology, &err);
            (void)psb_mesh_volume(&mesh);
            psb_mesh *parts = NULL;
            int count = 0;
            if (psb_mesh_split(&mesh, &parts, &count, &err) == PSB_OK) {
                for (int i = 0; i < count; i++) {
                    check_mesh(&parts[i]);
                    psb_mesh_free(&parts[i]);
                }
                free(parts);
            }
        }
        psb_mesh_free(&mesh);
    }
    return 0;
}
