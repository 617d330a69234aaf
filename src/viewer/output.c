// What the viewer writes: PNG screenshots, frame-time statistics, and the
// end-of-run report that tests read.
#include "output.h"

#include "panel.h"
#include "scenes.h"
#include "stage.h"
#include "status.h"
#include "table.h"
#include "text.h"

#include <math.h>
#include <stb/stb_image_write.h>
#include <stdlib.h>
#include <string.h>

// Frames at the start left out of the statistics (shader compilation, first uploads).
enum { WARMUP_FRAMES = 3 };

bool output_screenshot(app *a, const char *path) {
    const int w = a->fb_w, h = a->fb_h;
    const size_t row = (size_t)w * 3, size = row * (size_t)h;
    if (a->pixels_size < size + row) {
        // Made on the first screenshot (and on a larger window), not per frame.
        unsigned char *p = realloc(a->pixels, size + row);
        if (!p) {
            status_message(a, true, "screenshot: out of memory");
            return false;
        }
        a->pixels = p;
        a->pixels_size = size + row;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, a->pixels);
    // GL rows start at the bottom; PNG rows at the top.
    unsigned char *tmp = a->pixels + size;
    for (int y = 0; y < h / 2; y++) {
        unsigned char *top = a->pixels + (size_t)y * row,
                      *bottom = a->pixels + (size_t)(h - 1 - y) * row;
        memcpy(tmp, top, row);
        memcpy(top, bottom, row);
        memcpy(bottom, tmp, row);
    }
    if (!stbi_write_png(path, w, h, 3, a->pixels, (int)row)) {
        status_message(a, true, "screenshot: cannot write %s", path);
        return false;
    }
    return true;
}

void output_record_frame(app *a, double ms) {
    a->frame_times[(a->frame - 1) % a->frame_time_cap] = (float)ms;
}

static int by_value(const void *pa, const void *pb) {
    const float a = *(const float *)pa, b = *(const float *)pb;
    return a < b ? -1 : a > b;
}

void output_stats(const app *a, FILE *out) {
    // Frame k's time is recorded when frame k + 1 starts: frame - 1 times in all.
    const long recorded = a->frame - 1 < a->frame_time_cap ? a->frame - 1 : a->frame_time_cap;
    const long skip = recorded > 2 * WARMUP_FRAMES ? WARMUP_FRAMES : 0;
    const long n = recorded - skip;
    if (n <= 0) {
        fprintf(out, "frames=%ld mean_ms=0 p99_ms=0 max_ms=0 fps=0 size=%dx%d msaa=%d\n", a->frame,
                a->fb_w, a->fb_h, a->msaa);
        return;
    }
    float *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
        return;
    }
    memcpy(sorted, a->frame_times + skip, (size_t)n * sizeof *sorted);
    double sum = 0.0;
    for (long i = 0; i < n; i++) {
        sum += sorted[i];
    }
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    const double mean = sum / (double)n;
    const long k = (long)ceil(0.99 * (double)n) - 1;
    const double p99 = sorted[k < 0 ? 0 : k];
    fprintf(out, "frames=%ld mean_ms=%.3f p99_ms=%.3f max_ms=%.3f fps=%.1f size=%dx%d msaa=%d\n", n,
            mean, p99, (double)sorted[n - 1], mean > 0.0 ? 1000.0 / mean : 0.0, a->fb_w, a->fb_h,
            a->msaa);
    free(sorted);
}

static void print_vec(FILE *out, const char *key, psb_vec3 v) {
    fprintf(out, "%s=%.6f,%.6f,%.6f\n", key, v.x, v.y, v.z);
}

void output_report(const app *a, FILE *out) {
    const psb_world *w = a->scene.world;
    const psb_params *p = psb_world_params(w);
    fprintf(out, "frames=%ld\n", a->frame);
    // The scene: a psb_viewer_scene_name, or "files" for the files given or dropped.
    fprintf(out, "scene=%s\n",
            a->models_scene    ? MODELS_SCENE
            : a->models_loaded ? "files"
                               : a->scene.name);
    fprintf(out, "scene_entry=%d\nscene_entries=%d\n", scenes_entry(a), scenes_entries(a));
    // The models scene: its folder, its OBJ files (as last listed), the one
    // shown (-1 in another scene) and its name.
    const bool model = a->models_scene && a->model_count > 0;
    fprintf(out, "meshes_dir=%s\nmodel_entries=%d\nmodel_entry=%d\nmodel_name=%s\n", a->meshes_dir,
            a->model_count, model ? a->model_entry : -1,
            model ? a->model_names[a->model_entry].text : "");
    fprintf(out, "bodies=%d\nspheres=%d\n", a->scene.body_count, psb_world_sphere_count(w));
    fprintf(out, "sim_time=%.6f\nsteps=%ld\nsubsteps=%d\nsubsteps_needed=%d\n", psb_world_time(w),
            psb_world_step_count(w), p->substeps, a->scene.substeps_needed);
    // The controls in force (the panel's values follow, as param_NAME).
    const double ks = a->config.scene_config.params.body.spring_k;
    fprintf(out, "integrator=%s\ngravity=%g\ngas_scale=%g\nstiffness_scale=%g\npaused=%d\n",
            psb_integrator_name(p->integrator), p->gravity, a->gas_scale,
            ks > 0.0 ? a->spring_k / ks : 1.0, a->paused);
    fprintf(out, "dt=%.9g\nrestitution=%g\nfriction=%g\n", p->dt, p->restitution, p->friction);
    fprintf(out, "body_contact=%d\ncontacts=%d\n", p->body_contact, psb_world_contact_count(w));
    fprintf(out, "contact_solve=%d\nlinks=%d\nfull_list_steps=%ld\nput_back=%ld\n",
            p->contact_solve, psb_world_link_count(w), psb_world_full_list_steps(w),
            psb_world_put_back_count(w));
    panel_report(a, out);
    // The implicit solver on the last world step (zeros for the explicit integrators).
    const psb_solver_report solver = psb_world_solver_report(w);
    fprintf(out,
            "solver_newton=%d\nsolver_iterations=%d\nsolver_residual=%.6g\n"
            "solver_force_residual=%.6g\nsolver_converged=%d\nsolver_asleep=%d\n",
            solver.newton, solver.iterations, solver.residual, solver.force_residual,
            solver.converged, solver.asleep);
    print_vec(out, "wind", p->wind);
    fprintf(out, "wind_turbulence=%g\nwind_on=%d\n", p->wind_turbulence, psb_params_wind_blows(p));
    fprintf(out, "shader_dir=%s\n", a->shader_dir);
    fprintf(out, "gl_renderer=%s\ngl_version=%s\n", (const char *)glGetString(GL_RENDERER),
            (const char *)glGetString(GL_VERSION));
    fprintf(out, "window=%dx%d\nframebuffer=%dx%d\n", a->win_w, a->win_h, a->fb_w, a->fb_h);
    fprintf(out, "cursor=%.1f,%.1f\n", a->cursor_x, a->cursor_y);
    // The layout: every part's rectangle (x, y, w, h in framebuffer pixels,
    // origin top left), the text scale and line height.
    const rect *rects[9] = {&a->hud_rect,      &a->hud.title,     &a->hud.column[0],
                            &a->hud.column[1], &a->hud.column[2], &a->hud.messages,
                            &a->view2d,        &a->view3d,        &a->plot_rect};
    const char *names[9] = {"hud",         "hud_title",   "hud_column0",
                            "hud_column1", "hud_column2", "hud_messages",
                            "view2d",      "view3d",      "plots"};
    for (int i = 0; i < 9; i++) {
        fprintf(out, "%s=%.0f,%.0f,%.0f,%.0f\n", names[i], rects[i]->x, rects[i]->y, rects[i]->w,
                rects[i]->h);
    }
    fprintf(out, "camera_yaw=%.6f\ncamera_pitch=%.6f\ncamera_distance=%.6f\n", a->cam.yaw,
            a->cam.pitch, a->cam.distance);
    fprintf(out, "camera_target=%.6f,%.6f,%.6f\n", a->cam.target[0], a->cam.target[1],
            a->cam.target[2]);
    // Where the 3D bodies' box falls in the 3D view (normalised device
    // coordinates, -1 to 1 across it) and the larger of its width's and
    // height's share of the view's: how well the camera frames them.
    float lo[3], hi[3], r[4];
    const float aspect = a->view3d.h > 0.0f ? a->view3d.w / a->view3d.h : 1.0f;
    if (stage_bodies_box(a, lo, hi) && camera_box_ndc(&a->cam, aspect, lo, hi, r)) {
        fprintf(out, "bodies3d_lo=%.4f,%.4f,%.4f\nbodies3d_hi=%.4f,%.4f,%.4f\n", lo[0], lo[1],
                lo[2], hi[0], hi[1], hi[2]);
        fprintf(out, "bodies3d_ndc=%.4f,%.4f,%.4f,%.4f\nbodies3d_cover=%.4f\n", r[0], r[1], r[2],
                r[3], 0.5f * fmaxf(r[2] - r[0], r[3] - r[1]));
    }
    // The box loaded models were framed for, likewise.
    if (a->framed_lo[0] <= a->framed_hi[0] &&
        camera_box_ndc(&a->cam, aspect, a->framed_lo, a->framed_hi, r)) {
        fprintf(out, "framed3d_ndc=%.4f,%.4f,%.4f,%.4f\nframed3d_cover=%.4f\n", r[0], r[1], r[2],
                r[3], 0.5f * fmaxf(r[2] - r[0], r[3] - r[1]));
    }
    const grab_state *g = &a->grab;
    fprintf(out, "grabs=%d\npokes=%d\npoke_body=%d\ngrab_body=%d\n", g->grabs, g->pokes,
            g->last_poke_body, g->body);
    // The last poke's dent, now and at its deepest, in the body's mean radii.
    fprintf(out, "poke_dent=%.4f\npoke_dent_max=%.4f\npoke_active=%d\n", a->poke.dent,
            a->poke.dent_max, a->poke.active);
    if (g->body >= 0) {
        fprintf(out, "grab_point=%d\ngrab_view=%s\n", g->point, g->in_2d ? "2d" : "3d");
        print_vec(out, "grab_start", g->start);
        print_vec(out, "grab_target", g->target);
        print_vec(out, "grab_position", psb_body_positions(w, g->body)[g->point]);
    }
    // The last point pinned, unpinned or moved with the mouse (T, drags).
    fprintf(out, "pins_made=%d\nunpins=%d\npin_body=%d\n", g->pins, g->unpins, g->pin_body);
    if (g->pin_body >= 0) {
        fprintf(out, "pin_point=%d\npin_pinned=%d\n", g->pin_point,
                psb_body_is_pinned(w, g->pin_body, g->pin_point));
        print_vec(out, "pin_at", g->pin_at);
        print_vec(out, "pin_position", psb_body_positions(w, g->pin_body)[g->pin_point]);
    }
    static const char *const kinds[3] = {"ring", "shell", "cloth"};
    int blowups = 0, pinned = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        // Measured now: a key may have changed the body since the last frame's measure.
        const psb_body_state st = psb_body_measure(w, b);
        const psb_body_state *s = &st;
        const psb_body_params *m = psb_body_get_params(w, b);
        blowups += s->blowups;
        pinned += s->pinned;
        fprintf(out,
                "body%d=%s volume=%.6g v_ratio=%.6f pressure=%.6g energy=%.6g min_y=%.6f kind=%s "
                "pinned=%d shape_k=%g shape_damping=%g spring_k=%g wind_drag=%g\n",
                b, a->scene.bodies[b].label, s->volume,
                s->rest_volume > 0.0 ? s->volume / s->rest_volume : 0.0, s->pressure, s->energy,
                s->min_y, kinds[psb_body_get_kind(w, b)], s->pinned, m->shape_k, m->shape_damping,
                m->spring_k, m->wind_drag);
        fprintf(out, "body%d_mass=%g\nbody%d_spring_damping=%g\nbody%d_gas_nrt=%g\n", b, m->mass, b,
                m->spring_damping, b, m->gas_nrt);
        fprintf(out, "body%d_contact=%d\n", b, m->contact);
        char key[32];
        snprintf(key, sizeof key, "body%d_centroid", b);
        print_vec(out, key, s->centroid);
        // Its colour in both views and in the plots, and its plot line's style.
        const float *c = a->scene.bodies[b].color;
        fprintf(out, "body%d_color=%.3f,%.3f,%.3f\nbody%d_line=%s\n", b, c[0], c[1], c[2], b,
                psb_body_get_kind(w, b) == PSB_RING ? "dashed" : "solid");
        // Its name in the body table, and that text's width and the column's, pixels.
        char name[sizeof a->scene.bodies[b].label];
        const float column = ui_table_name(a, b, name, sizeof name);
        fprintf(out, "body%d_table_name=%s\nbody%d_table_name_px=%.1f,%.1f\n", b, name, b,
                ui_text_width(a, name, a->ui_scale), column);
        // Where that name is, window coordinates (x, y, w, h; w = 0: not shown).
        const rect nr = table_name_rect(a, b);
        const double kx = a->fb_w > 0 ? (double)a->win_w / a->fb_w : 1.0,
                     ky = a->fb_h > 0 ? (double)a->win_h / a->fb_h : 1.0;
        fprintf(out, "body%d_table_name_at=%.0f,%.0f,%.0f,%.0f\n", b, nr.x * kx, nr.y * ky,
                nr.w * kx, nr.h * ky);
    }
    // The plots' legend, the body table: the bodies with a line, in order,
    // and where it is.
    fprintf(out, "legend=");
    for (int k = 0; k < a->legend_count; k++) {
        fprintf(out, "%s%d", k ? "," : "", a->legend_body[k]);
    }
    // The plots' data areas, the time at their right edge ("now") and where
    // the newest sample is drawn (at that edge).
    const rect *pa = a->plot_area;
    fprintf(out,
            "\nplot_ratio_area=%.1f,%.1f,%.1f,%.1f\nplot_pressure_area=%.1f,%.1f,%.1f,%.1f\n"
            "plot_t_end=%.4f\nplot_newest_x=%.1f",
            pa[0].x, pa[0].y, pa[0].w, pa[0].h, pa[1].x, pa[1].y, pa[1].w, pa[1].h, a->plot_t_end,
            a->plot_newest_x);
    // The bodies with a row in the body table, in order.
    fprintf(out, "\ntable_shown=");
    for (int b = 0; b < table_shown(a); b++) {
        fprintf(out, "%s%d", b ? "," : "", b);
    }
    const rect *t = &a->table_rect;
    fprintf(out, "\ntable=%.0f,%.0f,%.0f,%.0f\nlegend_rect=%.0f,%.0f,%.0f,%.0f\n", t->x, t->y, t->w,
            t->h, t->x, t->y, t->w, t->h);
    // What the HUD drew over a view (none), the PAUSED badge and the help
    // panel (w = 0: not shown) with its text's scale, the HUD's text scale.
    fprintf(out, "ui_over_views=%d\nui_scale=%g\nline_h=%g\n", a->ui_over_views, a->ui_scale,
            a->line_h);
    const rect *pr = &a->paused_rect, *hr = &a->help_rect;
    fprintf(out, "paused_rect=%.0f,%.0f,%.0f,%.0f\nhelp_rect=%.0f,%.0f,%.0f,%.0f\n", pr->x, pr->y,
            pr->w, pr->h, hr->x, hr->y, hr->w, hr->h);
    fprintf(out, "help_scale=%g\n", hr->w > 0.0f ? a->help_scale : 0.0f);
    // Where the bodies were drawn since the scene was framed, framebuffer
    // pixels x0,y0,x1,y1: the rings in the 2D view, the rest in the 3D view.
    const float *s2 = a->seen2d, *s3 = a->seen3d;
    if (s2[0] <= s2[2]) {
        fprintf(out, "bodies2d_px=%.1f,%.1f,%.1f,%.1f\n", s2[0], s2[1], s2[2], s2[3]);
    }
    if (s3[0] <= s3[2]) {
        fprintf(out, "bodies3d_px=%.1f,%.1f,%.1f,%.1f\n", s3[0], s3[1], s3[2], s3[3]);
    }
    fprintf(out, "pinned=%d\n", pinned);
    fprintf(out, "tooltip=%s\n",
            a->tooltip_body >= 0 ? a->scene.bodies[a->tooltip_body].label : "");
    fprintf(out, "blowups=%d\nnonfinite_frames=%ld\nload_errors=%d\n", blowups, a->nonfinite_frames,
            a->load_errors);
    // The whole run's blow-ups, every scene's (the exit status is 3 if any).
    fprintf(out, "run_blowups=%ld\n", a->blowup_count);
    fprintf(out, "message=%s\nmessage_shown=%d\n", a->message, a->message_shown);
    fprintf(out, "title_shown=%s\n", a->title_shown);
    // The HUD's blow-up line (empty once its cause is gone), texts it cut
    // short, and its figures: means over the last measured window.
    fprintf(out, "blowup_shown=%s\ntext_cut=%d\n", status_blowup_live(a) ? a->blowup : "",
            a->text_cut);
    fprintf(out, "hud_measured=%d\nhud_fps=%.3f\nhud_frame_ms=%.3f\nhud_physics_ms=%.3f\n",
            a->measured, a->fps, a->frame_ms, a->sim_ms);
    fprintf(out, "hud_sim_speed=%.3f\nhud_slow_motion=%d\npartial_steps=%d\n", a->sim_speed,
            a->slow_motion, a->partial_steps);
    fprintf(out, "last_event=%s\n", psb_world_last_event(w));
    fprintf(out, "dropped_vertices=%d\n",
            a->lines3d.dropped + a->tris3d.dropped + a->pins3d.dropped + a->tris2d.dropped +
                a->lines2d.dropped + a->fill2d.dropped + a->ui_text.dropped + a->ui_back.dropped +
                a->ui_lines.dropped);
}
