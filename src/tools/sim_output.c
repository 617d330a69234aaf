// What `psb sim` prints; see sim_output.h.
#include "sim_output.h"

#include <math.h>
#include <stdio.h>

// What is measured: the fast step's world, or the plain model's.
typedef struct source {
    const psb_world *world; // else model
    const psb_model *model;
} source;

static int body_count(source src) {
    return src.world ? psb_world_body_count(src.world) : psb_model_body_count(src.model);
}
static psb_body_state body_state(source src, int b) {
    return src.world ? psb_body_measure(src.world, b) : psb_model_measure(src.model, b);
}
static int point_count(source src, int b) {
    return src.world ? psb_body_point_count(src.world, b) : psb_model_point_count(src.model, b);
}
static const psb_vec3 *positions(source src, int b) {
    return src.world ? psb_body_positions(src.world, b) : psb_model_positions(src.model, b);
}
static double spring_k(source src, int b) {
    return (src.world ? psb_body_get_params(src.world, b) : psb_model_body_params(src.model, b))
        ->spring_k;
}

// One body: its own figures, bit for bit. Several: sums, means over bodies,
// and the centroid and mean radius over all points, c = (1/N) sum x_i,
// r = (1/N) sum |x_i - c|.
static psb_sim_state combine(source src) {
    const int bodies = body_count(src);
    psb_sim_state out = {.bodies = bodies, .min_y = INFINITY};
    if (bodies == 1) {
        const psb_body_state s = body_state(src, 0);
        return (psb_sim_state){
            .bodies = 1,
            .points = point_count(src, 0),
            .volume = s.volume,
            .rest_volume = s.rest_volume,
            .pressure = s.pressure,
            .gas_nrt = s.gas_nrt,
            .spring_k = spring_k(src, 0),
            .mean_radius = s.mean_radius,
            .centroid = s.centroid,
            .min_y = s.min_y,
            .kinetic = s.kinetic,
            .spring = s.spring,
            .gas = s.gas,
            .gravity = s.gravity,
            .shape = s.shape,
            .energy = s.energy,
            .blowups = s.blowups,
            .pinned = s.pinned,
        };
    }
    psb_vec3 sum = {0.0, 0.0, 0.0};
    for (int b = 0; b < bodies; b++) {
        const psb_body_state s = body_state(src, b);
        out.points += point_count(src, b);
        out.volume += s.volume;
        out.rest_volume += s.rest_volume;
        out.pressure += s.pressure;
        out.gas_nrt += s.gas_nrt;
        out.spring_k += spring_k(src, b);
        out.kinetic += s.kinetic;
        out.spring += s.spring;
        out.gas += s.gas;
        out.gravity += s.gravity;
        out.shape += s.shape;
        out.energy += s.energy;
        out.blowups += s.blowups;
        out.pinned += s.pinned;
        out.min_y = fmin(out.min_y, s.min_y);
        const psb_vec3 *x = positions(src, b);
        for (int i = 0; i < point_count(src, b); i++) {
            sum.x += x[i].x;
            sum.y += x[i].y;
            sum.z += x[i].z;
        }
    }
    out.pressure /= bodies;
    out.gas_nrt /= bodies;
    out.spring_k /= bodies;
    if (out.points == 0) {
        out.min_y = 0.0;
        return out;
    }
    const double n = (double)out.points;
    out.centroid = (psb_vec3){sum.x / n, sum.y / n, sum.z / n};
    double distance = 0.0;
    for (int b = 0; b < bodies; b++) {
        const psb_vec3 *x = positions(src, b);
        for (int i = 0; i < point_count(src, b); i++) {
            const double dx = x[i].x - out.centroid.x;
            const double dy = x[i].y - out.centroid.y;
            const double dz = x[i].z - out.centroid.z;
            distance += sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    out.mean_radius = distance / n;
    return out;
}

psb_sim_state psb_sim_measure(const psb_world *world) {
    psb_sim_state out = combine((source){world, NULL});
    out.contacts = psb_world_contact_count(world);
    out.links = psb_world_link_count(world);
    out.put_back = psb_world_put_back_count(world);
    out.time = psb_world_time(world);
    out.steps = psb_world_step_count(world);
    return out;
}

psb_sim_state psb_sim_measure_model(const psb_model *model) {
    psb_sim_state out = combine((source){NULL, model});
    out.contacts = psb_model_contact_count(model);
    out.links = psb_model_link_count(model);
    out.put_back = psb_model_put_back_count(model);
    out.time = psb_model_time(model);
    out.steps = psb_model_step_count(model);
    return out;
}

void psb_sim_solver_add(psb_sim_solver_stats *stats, psb_solver_report report) {
    stats->steps++;
    stats->newton += report.newton;
    stats->iterations += report.iterations;
    stats->newton_max = report.newton > stats->newton_max ? report.newton : stats->newton_max;
    stats->iterations_max =
        report.iterations > stats->iterations_max ? report.iterations : stats->iterations_max;
    stats->residual = report.residual;
    stats->force_residual = report.force_residual;
    stats->unconverged += !report.converged;
    stats->asleep += report.asleep;
}

// The mean of a sum over the solver's steps (0 with no steps).
static double per_step(const psb_sim_solver_stats *solver, long sum) {
    return solver->steps > 0 ? (double)sum / (double)solver->steps : 0.0;
}

void psb_sim_write_csv_header(FILE *csv) {
    fputs("t,volume,pressure,kinetic,spring,gas,gravity,energy,"
          "mean_radius,centroid_x,centroid_y,centroid_z,min_y,shape\n",
          csv);
}

void psb_sim_write_csv_row(FILE *csv, double t, const psb_sim_state *s) {
    fprintf(csv, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", t,
            s->volume, s->pressure, s->kinetic, s->spring, s->gas, s->gravity, s->energy,
            s->mean_radius, s->centroid.x, s->centroid.y, s->centroid.z, s->min_y, s->shape);
}

void psb_sim_print_summary(const psb_world *world, const psb_sim_state *s,
                           const psb_sim_solver_stats *solver) {
    printf("time=%.9g\n", s->time);
    printf("steps=%ld\n", s->steps);
    printf("points=%d\n", s->points);
    printf("volume=%.9g\n", s->volume);
    printf("pressure=%.9g\n", s->pressure);
    printf("mean_radius=%.9g\n", s->mean_radius);
    printf("kinetic=%.9g\n", s->kinetic);
    printf("spring=%.9g\n", s->spring);
    printf("gas=%.9g\n", s->gas);
    printf("gravity_pe=%.9g\n", s->gravity);
    printf("energy=%.9g\n", s->energy);
    printf("centroid_x=%.9g\n", s->centroid.x);
    printf("centroid_y=%.9g\n", s->centroid.y);
    printf("centroid_z=%.9g\n", s->centroid.z);
    printf("min_y=%.9g\n", s->min_y);
    printf("blowups=%d\n", s->blowups);
    printf("bodies=%d\n", s->bodies);
    printf("contacts=%d\n", s->contacts);
    printf("links=%d\n", s->links);
    printf("full_list_steps=%ld\n", psb_world_full_list_steps(world));
    printf("put_back=%ld\n", s->put_back);
    printf("shape=%.9g\n", s->shape);
    printf("pinned=%d\n", s->pinned);
    printf("rest_volume=%.9g\n", s->rest_volume);
    printf("gas_nrt=%.9g\n", s->gas_nrt);
    printf("spring_k=%.9g\n", s->spring_k);
    if (psb_integrator_is_implicit(psb_world_params(world)->integrator)) {
        printf("newton_mean=%.9g\n", per_step(solver, solver->newton));
        printf("newton_max=%d\n", solver->newton_max);
        printf("iterations_mean=%.9g\n", per_step(solver, solver->iterations));
        printf("iterations_max=%d\n", solver->iterations_max);
        printf("residual=%.9g\n", solver->residual);
        printf("force_residual=%.9g\n", solver->force_residual);
        printf("unconverged_steps=%ld\n", solver->unconverged);
        printf("asleep_steps=%ld\n", solver->asleep);
    }
}

void psb_sim_print_report(const psb_world *world, const char *what, bool substeps_auto,
                          const psb_sim_state *s, const psb_sim_solver_stats *solver,
                          double wall_seconds) {
    const psb_params *p = psb_world_params(world);
    const int bodies = psb_world_body_count(world);
    int rings = 0;
    long springs = 0;
    long triangles = 0;
    for (int b = 0; b < bodies; b++) {
        rings += psb_body_get_kind(world, b) == PSB_RING;
        int count = 0;
        psb_body_edges(world, b, &count);
        springs += count;
        psb_body_triangles(world, b, &count);
        triangles += count;
    }
    // A scene may hold rings and 3D bodies: their areas and volumes add up
    // as numbers only.
    const bool ring = rings > 0 && rings == bodies;
    const bool mixed = rings > 0 && rings < bodies;
    printf("psb sim: %s\n", what);
    printf("  ");
    if (bodies != 1) {
        printf("%d bodies, ", bodies);
    }
    printf("%d points, %ld springs", s->points, springs);
    if (!ring) {
        printf(", %ld triangles", triangles);
    }
    printf("\n  %s, dt %g s in %d sub-step%s%s, gravity %g m/s², ",
           psb_integrator_name(p->integrator), p->dt, p->substeps, p->substeps == 1 ? "" : "s",
           substeps_auto ? " (auto)" : "", p->gravity);
    if (p->floor) {
        printf("floor at y = %g m\n", p->floor_y);
    } else {
        printf("no floor\n");
    }
    printf("  ran %ld steps, %g s simulated, in %.3g s\n", s->steps, s->time, wall_seconds);
    if (psb_integrator_is_implicit(p->integrator)) {
        printf("  solver       Newton %.3g a step (max %d), CG %.4g a step (max %d)\n",
               per_step(solver, solver->newton), solver->newton_max,
               per_step(solver, solver->iterations), solver->iterations_max);
        printf("  residual     last Newton step changed a velocity by %.3g m/s at most (tol %g), "
               "force left %.3g m/s²; ",
               solver->residual, p->solver_tol, solver->force_residual);
        if (solver->unconverged == 0) {
            printf("every step converged\n");
        } else {
            printf("%ld of %ld steps not converged\n", solver->unconverged, solver->steps);
        }
        if (solver->asleep > 0) {
            printf("  asleep       %ld sub-steps slept through (bodies still, from rest)\n",
                   solver->asleep);
        }
    }
    const char *volume_unit = ring ? "m² (area)" : mixed ? "(m² of 2D areas and m³ summed)" : "m³";
    const char *each = bodies > 1 ? ", mean over the bodies" : "";
    printf("  volume       %.6g %s (rest %.6g)\n", s->volume, volume_unit, s->rest_volume);
    printf("  pressure     %.6g %s (nRT %g%s)\n", s->pressure,
           ring    ? "N/m"
           : mixed ? "(N/m and Pa)"
                   : "Pa",
           s->gas_nrt, each);
    printf("  springs      ks %.6g N/m%s\n", s->spring_k, each);
    printf("  mean radius  %.6g m\n", s->mean_radius);
    printf("  centroid     (%.6g, %.6g, %.6g) m, lowest point at y = %.6g m\n", s->centroid.x,
           s->centroid.y, s->centroid.z, s->min_y);
    printf("  energy       kinetic %.6g, spring %.6g, gas %.6g, gravity %.6g, ", s->kinetic,
           s->spring, s->gas, s->gravity);
    if (s->shape != 0.0) {
        printf("shape %.6g, ", s->shape);
    }
    printf("total %.6g J\n", s->energy);
    if (psb_params_wind_blows(p)) {
        printf("  wind         (%g, %g, %g) m/s, gusts %g m/s\n", p->wind.x, p->wind.y, p->wind.z,
               p->wind_turbulence);
    }
    if (s->pinned > 0) {
        printf("  pinned       %d point%s\n", s->pinned, s->pinned == 1 ? "" : "s");
    }
    printf("  blow-ups     %d\n", s->blowups);
}
