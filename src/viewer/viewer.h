// The viewer's state, in one struct that every part of the viewer is handed
// (GLFW callbacks reach it through the window's user pointer), and the types
// its parts share. It declares no function: each file's own header declares
// what that file offers, and app.c says which files may call which.
// Internal to src/viewer.
#ifndef PSB_VIEWER_VIEWER_H
#define PSB_VIEWER_VIEWER_H

#include "camera.h"
#include "gl_util.h"
#include <psb/psb_viewer.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdbool.h>
#include <stdio.h>

enum {
    MAX_BODIES = PSB_SCENE_MAX_BODIES,
    PLOT_SAMPLES = 600,      ///< samples kept per plotted quantity (10 s of 60 Hz steps)
    MAX_STEPS_PER_FRAME = 4, ///< world steps one frame may run to catch up
    SHADOW_SEGMENTS = 24,    ///< triangles in a body's shadow
    PHYSICS_BUDGET_MS = 10,  ///< wall time a frame may spend stepping
    MAX_PENDING_DROPS = 8,   ///< files one drop may carry
    PATH_SIZE = 1024,
    MESSAGE_SIZE = 600,
    TEXT_QUADS = 40000,  ///< capacity of the quad batches (HUD, help, panels)
    AUTO_MSAA = 4,       ///< samples per pixel when the GPU is real
    MAX_PIN_MARKS = 256, ///< pinned points marked in the 3D view (more are counted as dropped)
    MAX_REPORTED_BLOWUPS = 10, ///< blow-ups said on stderr one by one (the HUD shows each)
    EXIT_BLOWUPS = 3,          ///< the exit status of a run that had blow-ups, as psb sim's
    SPHERE_LEVEL = 3,          ///< icosphere level of the static spheres drawn in 3D
};

/// Overlays, each toggled by a key.
typedef enum overlay {
    OVERLAY_VELOCITY,
    OVERLAY_NORMALS,
    OVERLAY_PRESSURE,
    OVERLAY_WIREFRAME,
    OVERLAY_STRAIN,
    OVERLAY_COUNT,
} overlay;

/// Shape matching: as the scene built it, or switched on or off for every body (M).
typedef enum shape_mode {
    SHAPE_AS_BUILT,
    SHAPE_ALL_ON,
    SHAPE_ALL_OFF,
} shape_mode;

/// A rectangle in framebuffer pixels, origin at the top left.
typedef struct rect {
    float x, y, w, h;
} rect;

/// Is (x, y) inside r (its left and top edges in, the others out)? Never in
/// an empty rectangle.
static inline bool rect_contains(rect r, double x, double y) {
    return r.w > 0.0f && r.h > 0.0f && x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

/// The HUD strip's parts (layout.c).
enum {
    HUD_COLUMNS = 3,      ///< frame and time; integrator and forces; material
    HUD_COLUMN_ROWS = 4,  ///< lines in each column
    HUD_MESSAGE_ROWS = 2, ///< lines for the blow-up report and the message
};
/// Where the HUD strip's parts are: a title row, three columns of figures
/// side by side (stacked where the window is too narrow), then the rows for
/// the blow-up report and the last message.
typedef struct hud_layout {
    rect title;               ///< the scene, the PAUSED badge, the overlays that are on
    rect column[HUD_COLUMNS]; ///< each HUD_COLUMN_ROWS lines tall
    rect messages;            ///< HUD_MESSAGE_ROWS lines, the strip's width
} hud_layout;

/// What a mouse drag is doing.
typedef enum drag_mode {
    DRAG_NONE,
    DRAG_ORBIT,
    DRAG_PAN,
    DRAG_GRAB,
    DRAG_POKE,  ///< the button that poked is held: the finger stays in
    DRAG_PANEL, ///< a slider or a value of the parameter panel
} drag_mode;

/// The parameters that the keys and the parameter panel set, in the
/// panel's order (controls.c). Each is an entry of the core's table
/// (psb_param_find), which gives its unit, range and slider scale.
typedef enum control {
    CONTROL_GAS,         ///< a multiplier of each body's own gas amount nRT
    CONTROL_KS,          ///< spring stiffness, N/m (the scene's material's)
    CONTROL_KD,          ///< spring damping, N·s/m (likewise)
    CONTROL_MASS,        ///< body mass, kg (likewise)
    CONTROL_GRAVITY,     ///< m/s², in force while gravity is on (G)
    CONTROL_RESTITUTION, ///< bounce at contacts, 0..1
    CONTROL_FRICTION,    ///< friction rate, 1/s
    CONTROL_DT,          ///< the world step, s
    CONTROL_INTEGRATOR,  ///< a psb_integrator
    CONTROL_COUNT,
} control;

/// A part of the parameter panel that the mouse can use (panel.c).
typedef enum panel_part {
    PART_NONE,
    PART_VALUE,     ///< the value's field: click to type, drag to change
    PART_SLIDER,    ///< the slider's track: press or drag to set
    PART_RESET,     ///< the row's reset button
    PART_RESET_ALL, ///< the heading's "reset all" button
} panel_part;

enum {
    PANEL_EDIT_SIZE = 32,  ///< bytes of a value being typed
    PANEL_NOTE_SIZE = 256, ///< bytes of the note under the panel's rows
};

/// The parameter panel: shown or not, what the mouse is on and doing, the
/// value being typed, the last outcome.
typedef struct panel_state {
    bool shown;
    int hover_row;              ///< the row under the cursor (-1: none)
    panel_part hover_part;      ///< and the part
    int drag_row;               ///< the row whose slider or value is dragged (-1: none)
    panel_part drag_part;       ///< PART_SLIDER or PART_VALUE
    double drag_x0;             ///< where a value drag began (framebuffer x)
    double drag_t0;             ///< the value's place on the slider then (0..1, may overshoot)
    bool drag_moved;            ///< the value drag moved (else the release starts typing)
    int edit_row;               ///< the row being typed into (-1: none)
    char edit[PANEL_EDIT_SIZE]; ///< what is typed
    bool edit_refused;          ///< the last Enter was refused (the field turns red)
    bool edit_fresh;            ///< nothing typed yet: the first character replaces the text
    bool edit_overflow;         ///< more was typed than edit holds (refused on Enter)
    char note[PANEL_NOTE_SIZE]; ///< the last outcome, shown under the rows
    bool note_bad;              ///< it was a refusal
    int applied;                ///< values set with the panel so far
    int refused;                ///< values refused (out of range, not a number)
    int resets;                 ///< reset buttons pressed
    char shown_text[CONTROL_COUNT][64]; ///< each row's value as drawn last
} panel_state;

/// A poke: a finger (a sphere) pressed into a body's surface and held there
/// while the button is down, for POKE_HOLD_S at least; then lifted, and the
/// body springs back. See poke.c.
typedef struct poke_state {
    bool active;        ///< the finger is in (or going into) the body
    bool held;          ///< the button that poked is still down
    int body;           ///< the body poked last (-1: none)
    psb_vec3 tip;       ///< where the finger touched the surface, m
    psb_vec3 dir;       ///< the way it goes in (unit)
    double radius;      ///< the finger's radius, m
    double depth;       ///< how far in it goes, m
    double start_time;  ///< simulated time of the press, s
    double body_radius; ///< the body's mean radius at the press, m
    double hold_at;     ///< its centre of mass along dir at the press, m
    double hold_speed;  ///< and its speed along dir, m/s
    double dent;        ///< the dent now: the deepest inward move of a point near the
                        ///< finger, toward the centroid, since the press (mean radii)
    double dent_max;    ///< the deepest the dent was while the finger was in (mean radii)
    // Scratch, made on a press that needs more room (never per frame).
    int capacity; ///< points the arrays hold
    psb_vec3 *x;  ///< positions, then as the finger leaves them
    psb_vec3 *v;  ///< velocities, likewise
    double *r0;   ///< distance from the centroid at the press, m (< 0: far from the finger)
} poke_state;

/// The point the mouse holds: pulled toward the cursor on a plane through
/// the picked point that faces the camera (the z = 0 plane in 2D).
typedef struct grab_state {
    int body;            ///< -1 when nothing is held
    int point;           ///< the grabbed point
    bool in_2d;          ///< held in the 2D view
    double plane_p[3];   ///< a point of the drag plane, m
    double plane_n[3];   ///< its unit normal
    psb_vec3 start;      ///< the point's position when grabbed, m
    psb_vec3 target;     ///< where the cursor pulls it, m
    psb_vec3 pin_offset; ///< a pinned point's pin follows target + this, m
    int grabs;           ///< grabs so far
    int pokes;           ///< pokes so far
    int last_poke_body;  ///< body of the last poke, or -1
    int pins, unpins;    ///< points pinned and unpinned with T so far
    int pin_body;        ///< body of the last point pinned, unpinned or moved (-1: none)
    int pin_point;       ///< that point
    psb_vec3 pin_at;     ///< where its pin was put last, m
} grab_state;

/// Values over time for the plots: one ring buffer per body and quantity.
typedef struct plot_history {
    float time[PLOT_SAMPLES];                 ///< simulated time of each sample, s
    float ratio[MAX_BODIES][PLOT_SAMPLES];    ///< V / V0
    float pressure[MAX_BODIES][PLOT_SAMPLES]; ///< P, Pa (2D: N/m)
    int head;                                 ///< next slot to write
    int count;                                ///< samples held
    float ratio_lo, ratio_hi;                 ///< V / V0 axis, eased toward the data
    float log_p_lo, log_p_hi;                 ///< pressure axis, log10
} plot_history;

/// One scripted input event (see script.c for the text format).
typedef struct script_event {
    long frame; ///< frame on which it happens
    int type;   ///< a script_type
    float x, y; ///< cursor position or scroll amount
    int body;   ///< mouse_move_body: which body
    int code;   ///< button or key
    int mods;   ///< GLFW modifier bits
    char *text; ///< drop/screenshot path (owned)
    int line;   ///< line in the script, for messages
} script_event;

/// The GL programs and their uniforms.
typedef struct programs {
    GLuint color, mesh, floor, text;
    GLint text_transform, text_cell, text_columns, text_atlas;
    GLint color_transform;
    GLint mesh_view_proj, mesh_eye, mesh_light, mesh_floor_y;
    GLint floor_view_proj, floor_eye, floor_arena, floor_fog;
} programs;

/// One vertex of a lit body.
typedef struct mvert {
    float p[3];
    float n[3];
    rgba color;
} mvert;

/// The name of the scene that shows the meshes folder's models (models.c),
/// after psb_scene's scenes in the scene list (scenes.c).
#define MODELS_SCENE "models"

/// A file name in the meshes folder (its longest, NAME_MAX, fits).
typedef struct model_name {
    char text[256];
} model_name;

/// The whole viewer.
typedef struct app {
    psb_viewer_config config;
    GLFWwindow *window;
    char shader_dir[PATH_SIZE];
    int msaa; ///< samples per pixel in use

    // The scene and what the keys changed about it (kept across reloads).
    psb_scene scene;
    char scene_name[32]; ///< the scene to return to from loaded files (a psb_viewer_scene_name)
    bool models_loaded;  ///< the 3D view shows models loaded from OBJ files (given, dropped,
                         ///< or the models scene's)
    char model_paths[PSB_VIEWER_MAX_FILES][PATH_SIZE]; ///< the OBJ files given or dropped last
    int model_path_count; ///< how many (0: the scene list has no entry for them)
    // The models scene (models.c): the meshes folder's OBJ files, one at a
    // time on the ring's stage.
    bool models_scene;          ///< it is shown (its model, or the ring alone if none loaded)
    char meshes_dir[PATH_SIZE]; ///< its folder ("": none found)
    model_name *model_names;    ///< its *.obj files, sorted by name (made when listed)
    int model_count;            ///< how many
    int model_entry;            ///< the one shown, or shown last (0 .. model_count - 1)
    // The controls (controls.c): set by the keys and the parameter panel,
    // written into the world by controls_apply.
    double gas_scale;      ///< multiplies every body's gas amount as built
    double spring_k;       ///< N/m: the material's ks; a body built with its own scales with it
    double spring_damping; ///< N·s/m: likewise for kd
    double mass;           ///< kg: likewise for the mass
    double gravity;        ///< m/s², in force while gravity_on
    bool gravity_on;
    bool contact_on;    ///< contact between bodies (K), psb_params.body_contact
    double restitution; ///< bounce, 0..1
    double friction;    ///< 1/s
    double dt;          ///< the world step, s
    psb_integrator integrator;
    bool integrator_chosen; ///< by --integrator, the I key or the panel: loaded models keep it
    // What the scene brought, set again by each scene change: shape matching
    // and the wind (M and B change them), each body's spring stiffness.
    shape_mode shape;
    bool wind_on;
    psb_vec3 wind;                     ///< the wind B switches on, m/s
    double wind_turbulence;            ///< its gusts, m/s
    double built_spring_k[MAX_BODIES]; ///< N/m, as built: ] and [ scale it
    bool ring_matched[MAX_BODIES];     ///< a sphere of the ring's material: its ks follows the
                                       ///< ring's by psb_scene_sphere_spring_k, not in proportion
    double built_damping[MAX_BODIES];  ///< N·s/m, as built
    double built_mass[MAX_BODIES];     ///< kg, as built
    double mean_face_area[MAX_BODIES]; ///< rest shape, m² (2D: mean edge length, m)
    psb_body_state state[MAX_BODIES];  ///< measured this frame
    plot_history plots;

    // Layout, in framebuffer pixels; window and framebuffer sizes differ on
    // high-DPI. Opaque strips hold every text: the HUD above the views, the
    // plots and the body table below them; nothing is drawn over a view but
    // what it shows (layout.c).
    int fb_w, fb_h, win_w, win_h;
    float ui_scale;              ///< text and line scale
    float line_h;                ///< a line of text, pixels
    rect hud_rect;               ///< the HUD strip, the window's width, at the top
    hud_layout hud;              ///< its parts
    rect view2d, view3d;         ///< the views, side by side between the strips
    rect plot_rect;              ///< the plots, at the left of the bottom strip
    rect table_rect;             ///< the body table, at its right: the plots' legend too
    rect plot_area[2];           ///< the V/V0 and the pressure plots' data areas (w = 0: none)
    float plot_t_end;            ///< simulated time at their right edge ("now"), s
    float plot_newest_x;         ///< where their newest sample is drawn, pixels (NaN: none)
    int legend_count;            ///< bodies with a line in the plots (the table's swatches)
    int legend_body[MAX_BODIES]; ///< which, in the table's order
    rect panel_rect;             ///< the parameter panel, right of the views (w = 0: hidden)
    panel_state panel;           ///< what the panel shows and what the mouse does in it
    rect paused_rect;            ///< the PAUSED badge (w = 0: not shown)
    rect help_rect;              ///< the help panel (w = 0: not shown)
    float help_scale;            ///< its text's scale (smaller than ui_scale where it must be)
    int ui_over_views;           ///< HUD quads and lines drawn over a view this frame (0)
    // Where the bodies were drawn since the scene was last framed, as
    // {x0, y0, x1, y1} in framebuffer pixels (x0 > x1: none yet): the rings
    // in the 2D view, the other bodies' points in the 3D view. With --report.
    float seen2d[4], seen3d[4];
    // The box loaded models were framed for (their whole run: from the
    // floor to their top as they start), m; lo > hi when not framed so.
    float framed_lo[3], framed_hi[3];
    camera cam;
    double view2d_center[2]; ///< world point at the 2D view's centre, m
    double view2d_scale;     ///< pixels per metre in the 2D view
    float view2d_zoom;       ///< wheel zoom of the 2D view

    // Time. The figures the HUD shows are means over the last window of at
    // least half a second of wall time, all over the same frames: the
    // frame time as --stats takes it (wall time from one frame's start to
    // the next's), the physics' share of it, the simulated time per second.
    bool paused;
    int step_requests;
    double accumulator;       ///< simulated time owed, s
    double last_time;         ///< wall clock at the last frame, s
    bool virtual_clock;       ///< one dt per frame (scripted and --frames runs)
    long frame;               ///< frames drawn
    double fps, frame_ms;     ///< frames per second, mean ms per frame (the window)
    double sim_ms;            ///< mean wall time of the steps per frame, ms (the window)
    double steps_per_s;       ///< world steps per wall-clock second (the window)
    double sim_speed;         ///< simulated seconds per wall-clock second (the window)
    bool measured;            ///< a whole window has been measured: the figures above hold
    double window_start;      ///< when the window began (wall clock, s)
    long frames_window;       ///< frames ended in the window
    double physics_window_ms; ///< wall time of the steps in the window, ms
    long steps_window;        ///< steps in the window
    double sim_window;        ///< simulated time in the window, s
    double substep_ms;        ///< wall time of one sub-step of every body, ms (smoothed)
    bool partial_steps;       ///< a step costs more than the budget: one partial step a frame
    int partial_substeps;     ///< the sub-steps of that partial step
    bool slow_motion;         ///< the last window ran below real time (shown in the HUD)
    float *frame_times;       ///< ms per frame, for --stats (made once)
    long frame_time_cap;
    long nonfinite_frames; ///< frames where a body had a non-finite point (not drawn)

    // Display options.
    bool overlay[OVERLAY_COUNT];
    bool help;

    // Mouse.
    double cursor_x, cursor_y; ///< window coordinates
    int mods;
    drag_mode drag;
    int drag_button;
    grab_state grab;
    poke_state poke;
    bool script_owns_input; ///< a script is replaying: ignore the real mouse and keys

    // Loading and messages.
    char pending[MAX_PENDING_DROPS][PATH_SIZE];
    int pending_count;
    int load_errors;
    char message[MESSAGE_SIZE]; ///< shown in the HUD until it expires
    bool message_error;
    double message_time;       ///< when it was set (wall clock, s)
    long message_frame;        ///< the frame it was set on
    bool message_shown;        ///< drawn this frame (not yet expired)
    char blowup[MESSAGE_SIZE]; ///< the last blow-up report ("": cleared)
    double blowup_time;        ///< simulated time of that blow-up, s
    long blowup_steps;         ///< steps with a blow-up in the whole run (any scene)
    long blowup_count;         ///< bodies that blew up in them (a body each step it did)
    long full_list_steps;      ///< the world's steps that left contacts or links out, as last seen
    int text_cut;              ///< HUD texts cut short this frame for lack of room
    char title_shown[MESSAGE_SIZE]; ///< the HUD's title row (the scene) as drawn last
    int tooltip_body;               ///< body whose shortened name is shown whole (cursor on it; -1)
    char screenshot_path[PATH_SIZE]; ///< requested for the end of this frame
    bool screenshot_now;
    unsigned char *pixels; ///< screenshot read-back (made on first use)
    size_t pixels_size;
    int exit_status;

    // Script.
    script_event *events;
    int event_count, next_event;

    // GL resources.
    programs prog;
    GLuint quad_ibo;
    batch bg;      ///< viewport backgrounds (pixels)
    batch tris3d;  ///< 3D shadows under the bodies (world, blended)
    batch pins3d;  ///< 3D pin markers (world, depth-tested)
    batch lines3d; ///< 3D overlays (world)
    batch fill2d;  ///< ring fills: stencil fan then cover quad (2D world)
    batch tris2d;  ///< 2D shapes (2D world)
    batch lines2d; ///< 2D grid and overlays (2D world)
    batch ui_back; ///< panels (pixels, quads)
    batch ui_lines;
    batch ui_text;                ///< text (pixels, quads)
    int lines3d_overlay_end;      ///< lines3d after this are drawn over everything
    int ui_back_top, ui_text_top; ///< ui_back / ui_text from here on: the help, over the rest
    int tris2d_back_end;          ///< tris2d before this are drawn under the ring
    int lines2d_grid_end;         ///< lines2d before this are the grid
    int fill_first[MAX_BODIES];   ///< fill2d ranges per ring: fan, then 4 cover vertices
    int fill_count[MAX_BODIES];
    int fill_rings;
    bool gpu_ready; ///< the buffers are sized for the scene
    GLuint mesh_vao, mesh_vbo, mesh_ibo;
    mvert *mesh_verts;           ///< every 3D body's vertices, one after another, then the spheres'
    int mesh_vert_count;         ///< the bodies' vertices (updated every frame)
    int mesh_index_count;        ///< all indices: closed surfaces (culled), then cloths (two-sided)
    int mesh_closed_index_count; ///< the first indices: shells and static spheres
    int vertex_base[MAX_BODIES]; ///< first vertex of each 3D body in mesh_verts (-1: 2D)
    float *strain_sum;           ///< per vertex: summed strain of its springs
    float *strain_n;             ///< per vertex: springs summed
    GLuint floor_vao, floor_vbo;
    GLuint text_texture; ///< glyph atlas (R8 coverage)
    float text_scale;    ///< the scale it was made for (0: not made yet)
    int text_cell_w, text_cell_h;
    float text_advance[95]; ///< per glyph, pixels at scale 1
} app;

#endif
