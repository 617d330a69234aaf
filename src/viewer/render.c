// The frame: the 3D view, the 2D view and the HUD built into their batches
// (render3d.c, render2d.c, ui.c), uploaded, and drawn over flat
// backgrounds, from the GL resources that gpu.c makes.
#include "render.h"

#include "render2d.h"
#include "render3d.h"
#include "text.h"
#include "ui.h"

// A GL viewport (origin bottom left) for a layout rectangle (origin top left).
static void set_viewport(const app *a, rect r) {
    const GLint x = (GLint)r.x, y = (GLint)(a->fb_h - (r.y + r.h));
    glViewport(x, y, (GLsizei)r.w, (GLsizei)r.h);
    glScissor(x, y, (GLsizei)r.w, (GLsizei)r.h);
}

// Pixel coordinates, origin top left, over the whole framebuffer.
static void pixel_transform(const app *a, mat4 out) {
    glm_ortho(0.0f, (float)a->fb_w, (float)a->fb_h, 0.0f, -1.0f, 1.0f, out);
}

void render_frame(app *a) {
    if (!a->gpu_ready) {
        return;
    }
    batch *batches[] = {&a->bg,     &a->tris3d,  &a->pins3d,  &a->lines3d,  &a->fill2d,
                        &a->tris2d, &a->lines2d, &a->ui_back, &a->ui_lines, &a->ui_text};
    const int batch_count = (int)(sizeof batches / sizeof batches[0]);
    for (int i = 0; i < batch_count; i++) {
        batch_clear(batches[i]);
    }
    render3d_build(a);
    render2d_build(a);
    ui_build(a);
    for (int i = 0; i < batch_count; i++) {
        batch_upload(batches[i]);
    }

    // Flat backgrounds by scissored clears: far cheaper than drawing them on
    // a software renderer. The strips (HUD, plots, table) and the parameter
    // panel are opaque.
    glEnable(GL_SCISSOR_TEST);
    const rect regions[6] = {a->view2d,    a->view3d,     a->hud_rect,
                             a->plot_rect, a->table_rect, a->panel_rect};
    const float colors[6][3] = {{0.13f, 0.145f, 0.175f},
                                {0.115f, 0.125f, 0.15f},
                                {ui_panel.r / 255.0f, ui_panel.g / 255.0f, ui_panel.b / 255.0f},
                                {0.06f, 0.065f, 0.078f},
                                {0.06f, 0.065f, 0.078f},
                                {0.06f, 0.065f, 0.078f}};
    for (int i = 0; i < 6; i++) {
        if (regions[i].w < 1.0f || regions[i].h < 1.0f) {
            continue;
        }
        set_viewport(a, regions[i]);
        glClearColor(colors[i][0], colors[i][1], colors[i][2], 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    glDisable(GL_SCISSOR_TEST);
    glViewport(0, 0, a->fb_w, a->fb_h);
    glClearStencil(0);
    glStencilMask(0xff);
    glDepthMask(GL_TRUE);
    glClear(GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_CULL_FACE);

    mat4 pixels;
    pixel_transform(a, pixels);
    glEnable(GL_SCISSOR_TEST);
    if (a->view3d.w >= 1.0f && a->view3d.h >= 1.0f) {
        set_viewport(a, a->view3d);
        render3d_draw(a);
        // The sky, behind everything drawn (depth test at the far plane).
        glViewport(0, 0, a->fb_w, a->fb_h);
        glUseProgram(a->prog.color);
        glUniformMatrix4fv(a->prog.color_transform, 1, GL_FALSE, (const float *)pixels);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_FALSE);
        glDisable(GL_BLEND);
        batch_draw(&a->bg, GL_TRIANGLES, 0, a->bg.count);
        glEnable(GL_BLEND);
        glDepthMask(GL_TRUE);
        glDisable(GL_DEPTH_TEST);
    }
    if (a->view2d.w >= 1.0f && a->view2d.h >= 1.0f) {
        set_viewport(a, a->view2d);
        render2d_draw(a);
    }
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glViewport(0, 0, a->fb_w, a->fb_h);
    glUseProgram(a->prog.color);
    glUniformMatrix4fv(a->prog.color_transform, 1, GL_FALSE, (const float *)pixels);
    batch_draw(&a->ui_back, GL_TRIANGLES, 0, a->ui_back_top);
    batch_draw(&a->ui_lines, GL_LINES, 0, a->ui_lines.count);
    text_bind(a, (const float *)pixels);
    batch_draw(&a->ui_text, GL_TRIANGLES, 0, a->ui_text_top);
    // The help panel (or the tooltip), over everything else.
    glUseProgram(a->prog.color);
    batch_draw(&a->ui_back, GL_TRIANGLES, a->ui_back_top, a->ui_back.count - a->ui_back_top);
    text_bind(a, (const float *)pixels);
    batch_draw(&a->ui_text, GL_TRIANGLES, a->ui_text_top, a->ui_text.count - a->ui_text_top);
    glBindVertexArray(0);
}
