// The viewer's state, in one struct that every part of the viewer is handed
// (GLFW callbacks reach it through the window's user pointer), and the
// functions the viewer's files share. Internal to src/viewer.
#ifndef PSB_VIEWER_APP_H
#define PSB_VIEWER_APP_H

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
    // written into the world by app_apply_controls.
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
    double message_time;            ///< when it was set (wall clock, s)
    long message_frame;             ///< the frame it was set on
    bool message_shown;             ///< drawn this frame (not yet expired)
    char blowup[MESSAGE_SIZE];      ///< the last blow-up report ("": cleared)
    double blowup_time;             ///< simulated time of that blow-up, s
    long blowup_steps;              ///< steps with a blow-up in the whole run (any scene)
    long blowup_count;              ///< bodies that blew up in them (a body each step it did)
    int text_cut;                   ///< HUD texts cut short this frame for lack of room
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

// app.c
/// Sets the HUD message (and prints errors on stderr).
void app_message(app *a, bool error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/// Makes next the scene shown (next is emptied, the old scene freed): GPU
/// buffers sized for it, the controls applied, the plots restarted. False
/// (and the viewer closing) when the buffers cannot be made.
bool app_install_scene(app *a, psb_scene *next);
/// Goes back to a->scene_name's scene (from loaded files).
void app_load_builtin(app *a);
/// Builds and shows the scene called name (a psb_viewer_scene_name); on
/// failure says why and keeps the scene.
bool app_load_scene(app *a, const char *name);
/// The scene list's entry shown: a psb_viewer_scene index (the models
/// scene's included), psb_viewer_scene_count() for the files given or
/// dropped, -1 if none.
int app_scene_entry(const app *a);
/// Frames the scene: the camera and the 2D view as for the default scene,
/// pulled back for a scene that reaches higher or wider; loaded models
/// framed for their whole run (the box from the floor to their top as they
/// are now, which holds their start in the air, their drop and their rest).
void app_frame_scene(app *a);
/// The box around every 3D body's points (rings left out), m; false if none.
bool app_bodies_box(const app *a, float lo[3], float hi[3]);
/// Entries in the scene list: the viewer's scenes, and the files given or
/// dropped if any.
int app_scene_entries(const app *a);
/// Shows entry `entry` of the scene list.
void app_switch_scene(app *a, int entry);
/// Frames the 2D view alone (its zoom and centre for the rings' width),
/// as app_frame_scene does: after the view's width changed.
void app_frame_2d(app *a);
/// Puts every body back as it was built and clears the plots and the
/// blow-up report.
void app_reset_bodies(app *a);
/// Is the message still shown (not expired)?
bool app_message_live(const app *a);
/// Is the blow-up report still shown: set, its cause not gone (R, a scene
/// change, a step within its stable limit), the blow-up recent?
bool app_blowup_live(const app *a);

// models.c
/// The name of the scene that shows the meshes folder's models.
#define MODELS_SCENE "models"
/// Loads OBJ files (given or dropped): the good ones replace the 3D bodies
/// on the ring's stage; bad ones only report, and if none is good the
/// scene runs on as it was.
void app_load_files(app *a, const char *const *paths, int count);
/// Loads the files given or dropped last again (the scene list's last entry).
void app_reload_files(app *a);
/// Finds the meshes folder (--meshes, else the usual places) and lists its
/// *.obj files by name into a->model_names; false, and why into why (may
/// be NULL), when there is no folder or no OBJ file in it.
bool models_list(app *a, char *why, size_t why_size);
/// Shows the models scene with its model `entry` (wrapped into the list),
/// loaded as a file given on the command line is, with its holes filled.
/// A missing folder or a file that does not load leaves the ring alone on
/// the stage, and the HUD and stderr say why.
void app_show_models(app *a, int entry);

// controls.c
/// The controls as the command line set them (psb_default_params()'s values
/// where it said nothing), gas x1.
void controls_init(app *a);
/// Writes the controls (gas, material, gravity, restitution, friction, dt,
/// integrator) and shape matching and the wind into the world; false (and
/// an error message) if the world refused them.
bool app_apply_controls(app *a);
/// A body's value of a material parameter: `value` where it was built with
/// the material's (`material`), else its own scaled as value / material.
double app_body_value(double built, double material, double value);
/// The control's short name ("gas", "ks", ... as scripts and --report name
/// it), its label in the panel, its entry in the core's table.
const char *control_name(control c);
const char *control_label(control c);
const psb_param_info *control_param(control c);
/// The control called name ("gas", "ks", ...), or -1.
int control_find(const char *name);
/// The control's value now, and as the viewer started.
double control_value(const app *a, control c);
double control_default(const app *a, control c);
/// The span a slider covers: the table's typical span (for the gas, as
/// multiples of the material's nRT), widened to hold the default.
void control_span(const app *a, control c, double *lo, double *hi);
/// Whether v is allowed (the table's range, for every body's own value);
/// else why not, with the range, into why.
bool control_check(const app *a, control c, double v, char *why, size_t size);
/// Checks v, sets it, applies it to the world and says so in the HUD; false
/// (and why) if refused, the control unchanged.
bool control_set(app *a, control c, double v, char *why, size_t size);
/// The keys: the control times factor, if allowed (else the message says why).
void control_scale(app *a, control c, double factor);
/// Control c, or every control, back to control_default (applied, and
/// said in the HUD).
void control_reset(app *a, control c);
void controls_reset(app *a);
/// v as the panel shows it: "x1.25", "200 N/m", "bdf2" (ASCII).
void control_format(const app *a, control c, double v, char *out, size_t size);
/// The range a typed value may take, short: "0 .. 1e12 N/m".
void control_range_text(const app *a, control c, char *out, size_t size);
/// For the gas and the material's controls, the bodies' own values now:
/// "the bodies: 65 .. 200 N/m" ("" for the other controls).
void control_bodies_text(const app *a, control c, char *out, size_t size);
/// A unit in ASCII for the HUD's font: "m/s^2", "N*s/m".
void control_ascii(const char *text, char *out, size_t size);
/// v rounded to `digits` significant digits (v itself if not finite or 0).
double control_round(double v, int digits);

// panel.c
/// Shows or hides the parameter panel (the views make room for it).
void panel_toggle(app *a);
/// The panel into the pixel-space batches (ui.c calls it).
void panel_build(app *a);
/// A press at framebuffer pixel (fx, fy): true if the panel took it (it is
/// over the panel); a press elsewhere ends the typing.
bool panel_press(app *a, int button, double fx, double fy);
/// The cursor moved to (fx, fy) while the panel drags (DRAG_PANEL).
void panel_drag(app *a, double fx, double fy);
/// The button let go after a panel drag; a value clicked without moving
/// starts the typing.
void panel_release(app *a);
/// The panel's drag ends without a release (the focus lost): nothing starts
/// the typing.
void panel_cancel_drag(app *a);
/// A key while typing: true if the panel took it (it takes every key then).
bool panel_key(app *a, int key, int action);
/// A character typed (GLFW's char callback, or a script's `type`).
void panel_char(app *a, unsigned int codepoint);
/// The panel's lines of --report: its rectangle, each control's value and
/// what the panel shows of it, the typing, the counts.
void panel_report(const app *a, FILE *out);
/// Where part `part` of control c's row is, window coordinates (for
/// scripts; fraction: along a slider, 0..1); false when it is not shown.
bool panel_part_pos(app *a, int c, panel_part part, double fraction, double *x, double *y);
// layout.c
/// Computes the layout from the framebuffer size and the scene's body count.
void app_layout(app *a);
/// A 2D world point (m) to framebuffer pixels of the 2D view, and back.
void layout_2d_to_fb(const app *a, double wx, double wy, double *fx, double *fy);
void layout_fb_to_2d(const app *a, double fx, double fy, double *wx, double *wy);
/// Counts the HUD's quads and lines drawn over a view into a->ui_over_views
/// (after ui_build; the help panel, drawn over everything, left out).
void layout_check(app *a);
/// Forgets where the bodies were seen (a scene framed again).
void layout_forget_bodies(app *a);
/// Adds where the bodies are drawn this frame to a->seen2d and a->seen3d.
void layout_track_bodies(app *a);

// input.c
/// Installs the GLFW callbacks.
void input_install(app *a);
/// Input handlers shared by GLFW callbacks and the script (window coordinates).
void input_cursor(app *a, double x, double y);
void input_button(app *a, int button, int action, int mods);
void input_scroll(app *a, double dx, double dy);
void input_key(app *a, int key, int action, int mods);
void input_drop(app *a, int count, const char **paths);
/// Keeps the grab target under the cursor while the camera or view moves.
void input_update_grab(app *a);
/// Screen position (window coordinates) of a body's centroid, for scripts.
bool input_body_screen_pos(app *a, int body, double *x, double *y);
/// Screen position (window coordinates) of one point of a body, for scripts.
bool input_point_screen_pos(app *a, int body, int point, double *x, double *y);

// pick.c
/// The camera's ray through framebuffer pixel (fx, fy) of the 3D view:
/// origin o, unit direction d; false if there is none.
bool pick_ray3d(const app *a, double fx, double fy, double o[3], double d[3]);
/// The nearest 3D body the ray hits (a shell, or a cloth from either side):
/// the body, the corner of the hit triangle nearest the hit, the hit point
/// (m). False when the ray hits nothing, or a static sphere first.
bool pick_3d(const app *a, const double o[3], const double d[3], int *body, int *point,
             double hit[3]);
/// The ring point nearest the 2D world point (x, y) (m), if (x, y) is inside
/// the ring or near one of its points.
bool pick_2d(const app *a, double x, double y, int *body, int *point);
/// Pokes ring b at its point i, against its outward normal there (the
/// drag becomes DRAG_POKE).
void pick_poke2d(app *a, int b, int i);

// poke.c
/// Presses a finger into body b at `at` (m) along dir (unit, into the body).
void poke_start(app *a, int b, const double at[3], const double dir[3]);
/// The button that poked is let go: the finger leaves once it has been in POKE_HOLD_S.
void poke_release(app *a);
/// Each frame, after the bodies are measured and before they are drawn:
/// keeps the body's points out of the finger, measures the dent.
void poke_update(app *a);
/// Lifts the finger at once (a scene change, R).
void poke_cancel(app *a);
/// Frees the scratch arrays.
void poke_free(app *a);

// script.c
/// Reads a script; on failure writes "FILE:LINE: ..." into error.
bool script_load(app *a, const char *path, char *error, size_t error_size);
/// Replays the events of the current frame.
void script_run_frame(app *a);
/// Frees the events.
void script_free(app *a);

// render.c
/// Loads the shaders and makes the GL objects; on failure writes why.
bool render_init(app *a, char *error, size_t error_size);
/// Sizes every buffer for the scene now installed (scene changes only).
bool render_scene_changed(app *a);
/// Frees the GL objects.
void render_free(app *a);
/// Builds, uploads and draws one frame.
void render_frame(app *a);

// render3d.c, render2d.c: fill the views' batches from the world, then draw them.
void render3d_build(app *a);
void render3d_draw(app *a);
void render2d_build(app *a);
void render2d_draw(app *a);

// ui.c, table.c, plots.c
/// text cut into lines at spaces to fit max_w, at most max_lines of them,
/// drawn at (x, y) if draw is set; returns the lines it takes. Drawn text
/// that does not fit counts in a->text_cut.
int ui_wrap(app *a, float x, float y, float s, rgba color, const char *text, float max_w,
            int max_lines, bool draw);
/// The HUD, the plots, the body table and the help overlay into the
/// pixel-space batches.
void ui_build(app *a);
/// The panels' text colours, and their background (the HUD strip's, the help's).
extern const rgba ui_white, ui_dim, ui_warn, ui_bad, ui_good, ui_panel;
/// The width the body table needs at scale s, pixels.
float table_width(float s);
/// The body table into table_rect: a row per body (a sample of its plot
/// line, its name, volume, pressure, energy, shape matching, pins).
void table_build(app *a);
/// Body b's name as the body table shows it, shortened in the middle to
/// fit its column, into out; returns the column's width, pixels.
float ui_table_name(const app *a, int b, char *out, size_t size);
/// The whole name of the body under the cursor in the table, over its
/// shortened one (drawn over the other panels).
void table_tooltip(app *a);
/// Where body b's name is in the table (framebuffer pixels); w = 0 when
/// its row is not shown.
rect table_name_rect(const app *a, int b);
/// The bodies with a row in the table: 0 .. table_shown() - 1 (all of them
/// unless the table is too small even in its compact form).
int table_shown(const app *a);
/// Forgets the plotted history.
void plots_clear(plot_history *p);
/// Measures every body after a world step and adds a sample.
void plots_sample(app *a);
/// The plots into the pixel-space batches.
void plots_build(app *a);
/// Does body b have a line in the V/V0 plot (pressure false) or in the
/// pressure plot (true)? A cloth has no volume, a body without gas no pressure.
bool plots_has_line(const app *a, int b, bool pressure);
/// Is body b's line dashed (a ring's) rather than solid (a 3D body's)?
bool plots_dashed(const app *a, int b);
/// A sample of body b's line from x0 to x1 at height y (pixels), in color.
void plots_swatch(app *a, int b, float x0, float x1, float y, rgba color);

// text.c
/// (Re)makes the glyph atlas for text at the given scale.
bool text_atlas_build(app *a, float scale);
/// Makes the text program current with the atlas, in pixel coordinates.
void text_bind(const app *a, const float *pixel_transform);
/// Text in framebuffer pixels at scale s (top left at x, y); returns the width drawn.
float ui_text(app *a, float x, float y, float s, rgba color, const char *text);
/// Width of text at scale s, pixels.
float ui_text_width(const app *a, const char *text, float s);
/// text into out (size bytes), shortened in the middle ("stanf...y.obj")
/// until it is at most max_w pixels wide at scale s; true if it was.
bool ui_text_elide(const app *a, const char *text, float s, float max_w, char *out, size_t size);

// output.c
/// Writes the current frame (back buffer) to a PNG file; false on failure.
bool output_screenshot(app *a, const char *path);
/// Keeps the time the last frame took, ms, for --stats.
void output_record_frame(app *a, double ms);
/// --stats: frames mean_ms p99_ms max_ms fps size msaa, one line.
void output_stats(const app *a, FILE *out);
/// --report: key=value lines about the camera, the grab, the layout and the bodies.
void output_report(const app *a, FILE *out);

/// Colour of a strain value: blue compressed, white at rest, red stretched.
rgba strain_color(float strain);
/// The static spheres' colour (a sandstone grey) and the pin markers' colour, sRGB.
extern const float sphere_color[3];
extern const float pin_color[3];

#endif
