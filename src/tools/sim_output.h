// What `psb sim` prints: all the bodies of a world measured together, as
// key=value lines (--summary), as a short readable report, or as CSV rows.
#ifndef PSB_SIM_OUTPUT_H
#define PSB_SIM_OUTPUT_H

#include <psb/psb.h>
#include <psb/psb_model.h>

#include <stdbool.h>
#include <stdio.h>

/// The bodies of a world taken together. With one body every field is that
/// body's own psb_body_state value; with several, extensive quantities are
/// summed, pressure and nRT averaged over the bodies, and the centroid and
/// mean radius taken over all points at once.
typedef struct psb_sim_state {
    double time;        ///< simulated time, s
    long steps;         ///< world steps taken
    int bodies;         ///< bodies in the world
    int contacts;       ///< contacts between bodies found in the last step
    int links;          ///< links held in the last sub-step's solve (contact inside the solve)
    long put_back;      ///< points put back out of another body so far (contact inside the solve)
    int points;         ///< points of all bodies
    double volume;      ///< sum of the volumes, m³ (2D: m²)
    double rest_volume; ///< sum of the rest volumes, m³ (2D: m²)
    double pressure;    ///< mean over the bodies of nRT / V - P0, Pa (2D: N/m)
    double gas_nrt;     ///< mean over the bodies of the gas amount in force, J
    double spring_k;    ///< mean over the bodies of the spring stiffness ks, N/m
    double mean_radius; ///< mean distance of all points from their common centroid, m
    psb_vec3 centroid;  ///< mean of all point positions, m
    double min_y;       ///< lowest point's height, m
    double kinetic;     ///< sum of 1/2 m v², J
    double spring;      ///< sum of the spring energies, J
    double gas;         ///< sum of -nRT ln V + P0 V, J
    double gravity;     ///< sum of m g y, J (pinned points left out)
    double shape;       ///< sum of the shape matching energies 1/2 k_shape sum |g - x|², J
    double energy;      ///< kinetic + spring + gas + gravity + shape, summed, J
    int blowups;        ///< blow-ups of all bodies since creation
    int pinned;         ///< pinned points of all bodies
} psb_sim_state;

/// Measures every body of the world and combines them as described above.
psb_sim_state psb_sim_measure(const psb_world *world);

/// The same for the plain model's bodies (`psb sim --reference`).
psb_sim_state psb_sim_measure_model(const psb_model *model);

/// What the implicit solver did over a run, gathered one world step at a
/// time from psb_world_solver_report (so each step's counts are summed over
/// the bodies and its residual is the largest body's).
typedef struct psb_sim_solver_stats {
    long steps;            ///< world steps gathered
    long newton;           ///< Newton iterations, summed over the steps
    long iterations;       ///< conjugate-gradient iterations, summed over the steps
    int newton_max;        ///< most Newton iterations in one step
    int iterations_max;    ///< most conjugate-gradient iterations in one step
    double residual;       ///< the last step's last Newton step: largest velocity change, m/s
    double force_residual; ///< the RMS unbalanced force per unit mass after it, m/s²
    long unconverged;      ///< steps in which some body missed solver_tol
    long asleep;           ///< sub-steps that bodies slept through, summed over the bodies
} psb_sim_solver_stats;

/// Adds one world step's report to stats (zero-initialised before the first).
void psb_sim_solver_add(psb_sim_solver_stats *stats, psb_solver_report report);

/// Writes the CSV header line: t volume pressure kinetic spring gas gravity
/// energy mean_radius centroid_x centroid_y centroid_z min_y shape.
void psb_sim_write_csv_header(FILE *csv);

/// Writes one CSV row for time t (s).
void psb_sim_write_csv_row(FILE *csv, double t, const psb_sim_state *s);

/// Prints the key=value lines of --summary on stdout: time steps points
/// volume pressure mean_radius kinetic spring gas gravity_pe energy
/// centroid_x centroid_y centroid_z min_y blowups bodies shape pinned (the
/// last two added with shape matching and pins, after the older keys)
/// rest_volume gas_nrt spring_k (the material in force, for V/V0); with
/// the implicit integrator then newton_mean newton_max iterations_mean
/// iterations_max residual force_residual unconverged_steps from solver (per
/// world step).
void psb_sim_print_summary(const psb_world *world, const psb_sim_state *s,
                           const psb_sim_solver_stats *solver);

/// Prints the readable report on stdout: `what` describes the bodies' source
/// ("icosphere level 3, radius 0.5 m"), substeps_auto says whether the
/// sub-step count was chosen by `--substeps auto`, solver is the implicit
/// solver's work (reported with that integrator only), wall_seconds is how
/// long the run took.
void psb_sim_print_report(const psb_world *world, const char *what, bool substeps_auto,
                          const psb_sim_state *s, const psb_sim_solver_stats *solver,
                          double wall_seconds);

#endif
