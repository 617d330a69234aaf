// The orbit camera. See camera.h.
#include "camera.h"

#include <math.h>

#define PITCH_MIN    0.0f // the eye no lower than the target it looks at
#define PITCH_MAX    1.55f
#define DEGREE       0.017453293f // rad
#define DISTANCE_MIN 0.8f
#define DISTANCE_MAX 60.0f
#define NEAR_PLANE   0.05f
#define FAR_PLANE    200.0f

camera camera_default(void) {
    return (camera){
        .yaw = 0.0f,
        .pitch = 0.50f, // 29 degrees: a 60 px orbit drag up leaves 5 degrees
        .distance = 5.9f,
        .target = {0.0f, 0.8f, 0.0f},
        .fov = 0.70f,
    };
}

void camera_eye(const camera *c, float eye[3]) {
    const float cp = cosf(c->pitch);
    eye[0] = c->target[0] + c->distance * cp * sinf(c->yaw);
    eye[1] = c->target[1] + c->distance * sinf(c->pitch);
    eye[2] = c->target[2] + c->distance * cp * cosf(c->yaw);
}

float camera_fov(const camera *c, float aspect) {
    if (!(aspect > 0.0f) || aspect >= CAMERA_WIDE) {
        return c->fov;
    }
    // As wide as a CAMERA_WIDE view: tan(fov' / 2) aspect = tan(fov / 2) CAMERA_WIDE.
    return 2.0f * atanf(tanf(0.5f * c->fov) * CAMERA_WIDE / aspect);
}

void camera_view_proj(const camera *c, float aspect, mat4 out) {
    mat4 view, proj;
    vec3 eye, target = {c->target[0], c->target[1], c->target[2]}, up = {0.0f, 1.0f, 0.0f};
    camera_eye(c, eye);
    glm_lookat(eye, target, up, view);
    glm_perspective(camera_fov(c, aspect), aspect > 0.0f ? aspect : 1.0f, NEAR_PLANE, FAR_PLANE,
                    proj);
    glm_mat4_mul(proj, view, out);
}

void camera_orbit(camera *c, float dx, float dy) {
    // Blender's rate (its default orbit sensitivity), whatever the window's size.
    const float per_px = CAMERA_ORBIT_DEG_PER_PX * DEGREE;
    c->yaw -= dx * per_px;
    c->pitch += dy * per_px;
    c->pitch = fminf(fmaxf(c->pitch, PITCH_MIN), PITCH_MAX);
    c->yaw = remainderf(c->yaw, 2.0f * 3.14159265f);
}

void camera_pan(camera *c, float dx, float dy, float width, float height) {
    // Move so that the point under the cursor at the target's depth follows it.
    const float h = height > 1.0f ? height : 1.0f;
    const float m_per_px = 2.0f * c->distance * tanf(0.5f * camera_fov(c, width / h)) / h;
    const float right[3] = {cosf(c->yaw), 0.0f, -sinf(c->yaw)};
    const float sp = sinf(c->pitch), cp = cosf(c->pitch);
    // Camera up: perpendicular to the view direction and to right.
    const float up[3] = {-sp * sinf(c->yaw), cp, -sp * cosf(c->yaw)};
    for (int i = 0; i < 3; i++) {
        c->target[i] += (-dx * right[i] + dy * up[i]) * m_per_px;
    }
}

void camera_zoom(camera *c, float steps) {
    c->distance /= powf(CAMERA_ZOOM_STEP, steps);
    c->distance = fminf(fmaxf(c->distance, DISTANCE_MIN), DISTANCE_MAX);
}

bool camera_ray(const camera *c, float aspect, float x, float y, double origin[3], double dir[3]) {
    mat4 vp, inv;
    camera_view_proj(c, aspect, vp);
    glm_mat4_inv(vp, inv);
    vec4 near_ndc = {x, y, -1.0f, 1.0f}, far_ndc = {x, y, 1.0f, 1.0f}, a, b;
    glm_mat4_mulv(inv, near_ndc, a);
    glm_mat4_mulv(inv, far_ndc, b);
    if (fabsf(a[3]) < 1e-12f || fabsf(b[3]) < 1e-12f) {
        return false;
    }
    double d[3], len = 0.0;
    for (int i = 0; i < 3; i++) {
        origin[i] = a[i] / a[3];
        d[i] = b[i] / b[3] - origin[i];
        len += d[i] * d[i];
    }
    len = sqrt(len);
    if (!(len > 0.0)) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        dir[i] = d[i] / len;
    }
    return true;
}

bool camera_project(const camera *c, float aspect, const float p[3], float *x, float *y) {
    mat4 vp;
    camera_view_proj(c, aspect, vp);
    vec4 in = {p[0], p[1], p[2], 1.0f}, out;
    glm_mat4_mulv(vp, in, out);
    if (out[3] <= 1e-6f) {
        return false;
    }
    *x = out[0] / out[3];
    *y = out[1] / out[3];
    return true;
}

bool camera_box_ndc(const camera *c, float aspect, const float lo[3], const float hi[3],
                    float out[4]) {
    out[0] = out[1] = INFINITY;
    out[2] = out[3] = -INFINITY;
    for (int k = 0; k < 8; k++) {
        const float p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
        float x, y;
        if (!camera_project(c, aspect, p, &x, &y)) {
            return false;
        }
        out[0] = fminf(out[0], x);
        out[1] = fminf(out[1], y);
        out[2] = fmaxf(out[2], x);
        out[3] = fmaxf(out[3], y);
    }
    return true;
}

// The larger half-extent of the box's projection (1: the whole view's
// height or width); a corner behind the eye counts as filling it all.
static float box_span(const camera *c, float aspect, const float lo[3], const float hi[3]) {
    float r[4];
    if (!camera_box_ndc(c, aspect, lo, hi, r)) {
        return INFINITY;
    }
    return 0.5f * fmaxf(r[2] - r[0], r[3] - r[1]);
}

void camera_fit_box(camera *c, float aspect, const float lo[3], const float hi[3], float fill) {
    for (int i = 0; i < 3; i++) {
        c->target[i] = 0.5f * (lo[i] + hi[i]);
    }
    // Two passes: the distance at which the box spans `fill`, then the
    // target moved so that the projection's middle is the view's middle
    // (perspective makes the near side larger), then the distance again.
    for (int pass = 0; pass < 2; pass++) {
        // The span shrinks as the eye backs away: bisect on the distance,
        // in ratios, between the camera's limits.
        float near = DISTANCE_MIN, far = DISTANCE_MAX;
        c->distance = near;
        if (box_span(c, aspect, lo, hi) > fill) {
            for (int k = 0; k < 40; k++) {
                c->distance = sqrtf(near * far);
                if (box_span(c, aspect, lo, hi) > fill) {
                    near = c->distance;
                } else {
                    far = c->distance;
                }
            }
            c->distance = far;
        }
        float r[4];
        if (pass == 1 || !camera_box_ndc(c, aspect, lo, hi, r)) {
            break;
        }
        // NDC to metres in the plane through the target that faces the eye.
        const float half_h = c->distance * tanf(0.5f * camera_fov(c, aspect));
        const float half_w = half_h * aspect;
        const float mx = 0.5f * (r[0] + r[2]) * half_w, my = 0.5f * (r[1] + r[3]) * half_h;
        const float right[3] = {cosf(c->yaw), 0.0f, -sinf(c->yaw)};
        const float sp = sinf(c->pitch), cp = cosf(c->pitch);
        const float up[3] = {-sp * sinf(c->yaw), cp, -sp * cosf(c->yaw)};
        for (int i = 0; i < 3; i++) {
            c->target[i] += mx * right[i] + my * up[i];
        }
    }
}
